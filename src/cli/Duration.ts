/**
 * Durations as people write them on a command line: `200ms`, `1s`, `5m`, `26h`, `2d`, or a
 * combination such as `1h30m`. A bare number is refused: "5" could mean seconds or minutes.
 */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Duration, Either, ParseResult, Schema } from "effect"

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy

export const parseDuration = (text: string): Either.Either<Duration.Duration, string> => {
  const trimmed = text.trim().toLowerCase()
  const invalid = Either.left(`"${text}" is not a duration: write it like 200ms, 1s, 5m, 26h or 1h30m`)
  if (trimmed === "") return invalid
  let millis = 0
  let end = 0
  for (const match of trimmed.matchAll(PART)) {
    millis += Number(match[1]) * UNITS[match[2]]
    end = match.index + match[0].length
  }
  if (end !== trimmed.length || !Number.isFinite(millis)) return invalid
  return Either.right(Duration.millis(Math.round(millis)))
}

/** The short form back: `90000` ms renders as `1m30s`; hours are the largest unit (`24h`, `26h`), one way for every default. */
export const formatDuration = (duration: Duration.Duration): string => {
  let rest = Math.round(Duration.toMillis(duration))
  if (rest === 0) return "0s"
  const parts: Array<string> = []
  for (const [unit, size] of [["h", 3_600_000], ["m", 60_000], ["s", 1_000], ["ms", 1]] as const) {
    const count = Math.floor(rest / size)
    if (count > 0) parts.push(`${count}${unit}`)
    rest -= count * size
  }
  return parts.join("")
}

export const DurationFromString = Schema.transformOrFail(Schema.String, Schema.DurationFromSelf, {
  strict: true,
  decode: (text, _, ast) =>
    Either.match(parseDuration(text), {
      onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, text, message)),
      onRight: ParseResult.succeed
    }),
  encode: (duration) => ParseResult.succeed(formatDuration(duration))
})

export const durationOption = (name: string): Options.Options<Duration.Duration> =>
  Options.text(name).pipe(
    Options.withPseudoName("DURATION"),
    Options.mapEffect((text) =>
      Either.mapLeft(parseDuration(text), (message) => ValidationError.invalidValue(HelpDoc.p(`--${name}: ${message}`)))
    )
  )
