/** `--lines 3,7-9`: what a person writes, read exactly or refused with the item quoted. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { formatLineRanges, parseLineRanges } from "../../src/cli/LineRanges.ts"

describe("parseLineRanges", () => {
  it("reads lines and ranges, sorted, without repeats", () => {
    expect(parseLineRanges("3,7-9")).toEqual(Either.right([3, 7, 8, 9]))
    expect(parseLineRanges(" 9, 3 , 7 - 8,8")).toEqual(Either.right([3, 7, 8, 9]))
    expect(parseLineRanges("5-5")).toEqual(Either.right([5]))
  })

  it("refuses what is not a list of lines, quoting the item", () => {
    for (const [text, said] of [
      ["", "at least one line"],
      ["3,,4", '"" is not a line or a range'],
      ["3-x", '"3-x" is not a line or a range'],
      ["-3", '"-3" is not a line or a range'],
      ["2.5", '"2.5" is not a line or a range'],
      ["9-7", '"9-7" goes backwards (write 7-9)'],
      ["0", '"0" is not a line of a file'],
      ["1-99999999", "spans more lines than a batch holds"]
    ] as const) {
      const parsed = parseLineRanges(text)
      expect(Either.isLeft(parsed), text).toBe(true)
      if (Either.isLeft(parsed)) expect(parsed.left).toContain(said)
    }
  })

  it("writes lines back as ranges", () => {
    expect(formatLineRanges([10, 3, 4, 5, 8, 3])).toBe("3-5,8,10")
    expect(formatLineRanges([])).toBe("")
  })
})
