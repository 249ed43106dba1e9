/**
 * Numbers and dates as people read them, in one place: counts and amounts with the user's thousands
 * separators (the locale of LC_ALL, LC_NUMERIC or LANG, else en-US), times in the local zone with the
 * zone named (`2026-11-23 10:14:05 GMT+1`; `UTC` where the zone is UTC), or with `--utc` as
 * `2026-11-23T09:14:05Z`. Only what people read goes through here: `--json`, the ledger and the
 * summary keep raw values.
 */
import { Config, Context, DateTime, Effect } from "effect"
import { minorDigits } from "../domain/Money.ts"

export const DEFAULT_LOCALE = "en-US"

/** `fr_FR.UTF-8` -> `fr-FR`; C, POSIX, empty or unknown to Intl -> undefined (the next variable decides). */
export const localeOf = (value: string | undefined): string | undefined => {
  const tag = (value ?? "").split(/[.@]/)[0].replace(/_/g, "-")
  if (tag === "" || tag === "C" || tag === "POSIX") return undefined
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0 ? tag : undefined
  } catch {
    return undefined
  }
}

/** The locale for numbers, as POSIX decides it: LC_ALL first, then LC_NUMERIC, then LANG. */
export const numberLocale: Effect.Effect<string> = Effect.gen(function* () {
  for (const name of ["LC_ALL", "LC_NUMERIC", "LANG"]) {
    const value = yield* Config.string(name).pipe(Config.option, Effect.orElseSucceed(() => undefined))
    const set = value?._tag === "Some" ? value.value : undefined
    // A variable that is set decides, even to C: LC_ALL=C means plain en-US digits, not LANG's locale.
    if (set !== undefined && set !== "") return localeOf(set) ?? DEFAULT_LOCALE
  }
  return DEFAULT_LOCALE
})

export interface Format {
  readonly locale: string
  /** A count: 12345 -> "12,345". */
  readonly count: (n: number) => string
  /** Minor units with the currency's decimals: 1250050 USD -> "12,500.50"; 5000000 XAF -> "5,000,000". */
  readonly minor: (minor: number, currency: string) => string
  /** A plain decimal as the ledger and summary write it ("11000", "1250.50") with separators. */
  readonly decimal: (text: string) => string
  /** A time as `2026-11-23 10:14:05 GMT+1` (local) or `2026-11-23T09:14:05Z` (UTC); text that is not a time is returned as it is. */
  readonly time: (at: string | number | Date | DateTime.DateTime) => string
}

/**
 * The number formats are made on first use: the first Intl.NumberFormat of a process loads the
 * locale's data (about 10 ms), which every command would pay at start for its notices, printed or not.
 */
export const formatFor = (locale: string, utc = false): Format => {
  let made: { readonly whole: Intl.NumberFormat; readonly point: string } | undefined
  let clock: Intl.DateTimeFormat | undefined
  const numbers = () =>
    (made ??= {
      whole: new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }),
      point: new Intl.NumberFormat(locale, { minimumFractionDigits: 1 }).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? "."
    })
  const digits = (sign: string, units: bigint, fraction: string) => {
    const { point, whole } = numbers()
    return `${sign}${whole.format(units)}${fraction === "" ? "" : `${point}${fraction}`}`
  }
  const minor = (value: number, currency: string) => {
    const places = minorDigits(currency)
    const abs = BigInt(Math.abs(Math.round(value)))
    const scale = 10n ** BigInt(places)
    return digits(value < 0 ? "-" : "", abs / scale, places === 0 ? "" : (abs % scale).toString().padStart(places, "0"))
  }
  const decimal = (text: string) => {
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim())
    return match === null ? text : digits(match[1], BigInt(match[2]), match[3] ?? "")
  }
  const time = (at: string | number | Date | DateTime.DateTime) => {
    const millis = DateTime.isDateTime(at) ? DateTime.toEpochMillis(at) : at instanceof Date ? at.getTime() : typeof at === "number" ? at : Date.parse(at)
    if (Number.isNaN(millis)) return String(at)
    if (utc) return `${new Date(millis).toISOString().slice(0, 19)}Z`
    clock ??= new Intl.DateTimeFormat("en-US", {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short"
    })
    const part = Object.fromEntries(clock.formatToParts(millis).map((p) => [p.type, p.value]))
    return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`
  }
  return { locale, count: (n) => (Number.isInteger(n) ? numbers().whole.format(n) : String(n)), minor, decimal, time }
}

/** Whether times are shown in UTC (`--utc`, a program option) rather than the local zone. */
export class UtcTimes extends Context.Reference<UtcTimes>()("output/UtcTimes", { defaultValue: () => false }) {}

/** The formats of the user's locale (from the environment, through Config) and zone. */
export const userFormat: Effect.Effect<Format> = Effect.flatMap(UtcTimes, (utc) => Effect.map(numberLocale, (locale) => formatFor(locale, utc)))
