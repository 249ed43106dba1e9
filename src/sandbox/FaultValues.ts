/** The values of the fault grammar (durations, ranges, shares, sizes, choices), each refused with what it expected. */
import { Either } from "effect"
import { ECHO_FORMS, type EchoSecret } from "./EchoSecret.ts"
import type { DescMangle, Range } from "./FaultSettings.ts"

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

export const parseDuration = (text: string): Either.Either<number, string> => {
  const match = DURATION.exec(text.trim())
  return match === null
    ? Either.left(`"${text}" is not a duration (write e.g. 200ms, 1s, 5m, 2h)`)
    : Either.right(Math.round(Number(match[1]) * UNIT_MS[match[2]]))
}

export const parseRange = (text: string): Either.Either<Range, string> => {
  const parts = text.split("-")
  if (parts.length > 2) return Either.left(`"${text}" is not a duration range (write e.g. 10ms-50ms)`)
  return Either.flatMap(parseDuration(parts[0]), (min) =>
    Either.flatMap(parts.length === 2 ? parseDuration(parts[1]) : Either.right(min), (max) =>
      max < min ? Either.left(`range "${text}" ends before it starts`) : Either.right({ min, max })
    )
  )
}

/** `8s` means 0..8s; `2s-8s` means 2s..8s. */
export const parseJitter = (text: string): Either.Either<Range, string> =>
  text.includes("-") ? parseRange(text) : Either.map(parseDuration(text), (max) => ({ min: 0, max }))

export const oneOf = <A extends string>(choices: ReadonlyArray<A>, text: string): Either.Either<A, string> => {
  const found = choices.find((choice) => choice === text)
  return found === undefined ? Either.left(`"${text}" is not one of ${choices.join(", ")}`) : Either.right(found)
}

export const parseMangle = (text: string): Either.Either<DescMangle, string> => {
  if (text === "strip" || text === "upper") return Either.right({ kind: text })
  const cut = /^cut=(\d+)$/.exec(text)
  if (cut !== null && Number(cut[1]) >= 1) return Either.right({ kind: "cut", length: Number(cut[1]) })
  return Either.left(`"${text}" is not one of cut=N (N at least 1), strip, upper`)
}

/** `FORM` or `FORM:P`, P the share of requests refused with the echo (default 1). */
export const parseEcho = (text: string): Either.Either<EchoSecret, string> => {
  const [formText, share] = text.split(":", 2)
  return Either.flatMap(oneOf(ECHO_FORMS, formText.trim()), (form) =>
    Either.map(share === undefined ? Either.right(1) : parseProbability(share), (refuse) => ({ form, refuse }))
  )
}

const BYTE_UNITS: Record<string, number> = { "": 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2 }

/** `300000`, `256k`, `200m` (KiB, MiB). */
export const parseBytes = (text: string): Either.Either<number, string> => {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim())
  const unit = match === null ? undefined : BYTE_UNITS[match[2].toLowerCase()]
  return match === null || unit === undefined || Number(match[1]) < 1
    ? Either.left(`"${text}" is not a size in bytes (write e.g. 300000, 256k, 200m)`)
    : Either.right(Number(match[1]) * unit)
}

export const parseProbability = (text: string): Either.Either<number, string> => {
  const value = Number(text)
  return text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1
    ? Either.left(`"${text}" is not a probability between 0 and 1`)
    : Either.right(value)
}

export const parseRate = (value: string): Either.Either<number, string> => {
  const rate = Number(value)
  return Number.isFinite(rate) && rate > 0 ? Either.right(rate) : Either.left(`"${value}" is not a positive rate`)
}
