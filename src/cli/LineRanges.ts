/**
 * `--lines 3,7-9`: the lines a person names for one decision, as file lines (header = line 1). A
 * wrong item is refused whole, with the item quoted: a decision about money never runs on a guess of
 * what was meant.
 */
import { Either } from "effect"

/** Far more lines than any batch holds: `1-999999999` would otherwise build a huge list first. */
const MAX_SPAN = 1_000_000

/** The lines named, ascending and without repeats; or why the text is not a list of lines. */
export const parseLineRanges = (text: string): Either.Either<ReadonlyArray<number>, string> => {
  const items = text.split(",").map((item) => item.trim())
  if (items.every((item) => item === "")) return Either.left("--lines needs at least one line, e.g. --lines 3,7-9")
  const lines = new Set<number>()
  for (const item of items) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(item)
    if (match === null) return Either.left(`--lines: "${item}" is not a line or a range (write e.g. --lines 3,7-9)`)
    const from = Number(match[1])
    const to = match[2] === undefined ? from : Number(match[2])
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1) return Either.left(`--lines: "${item}" is not a line of a file`)
    if (to < from) return Either.left(`--lines: "${item}" goes backwards (write ${to}-${from})`)
    if (to - from >= MAX_SPAN) return Either.left(`--lines: "${item}" spans more lines than a batch holds`)
    for (let line = from; line <= to; line++) lines.add(line)
  }
  return Either.right([...lines].sort((a, b) => a - b))
}

/** `[3, 7, 8, 9]` -> "3,7-9": how the lines are written back to a person. */
export const formatLineRanges = (lines: ReadonlyArray<number>): string => {
  const sorted = [...new Set(lines)].sort((a, b) => a - b)
  const parts: Array<string> = []
  let i = 0
  while (i < sorted.length) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`)
    i = j + 1
  }
  return parts.join(",")
}
