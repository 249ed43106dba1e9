/**
 * Fault settings (DESIGN section 4): comma-separated `ENDPOINT.KIND=VALUE`, plus `rate=N` and
 * `seed=N`. A key without an endpoint applies to every endpoint (`*`).
 */
import { Either } from "effect"

export const FAULT_ENDPOINTS = ["payout", "payin", "status", "transactions", "wallet", "*"] as const
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number]

export interface Range {
  readonly min: number
  readonly max: number
}

export interface EndpointFaults {
  readonly latency?: Range
  readonly error_before?: number
  readonly error_after?: number
  readonly reset_after?: number
  readonly hold_after?: number
  readonly list_lag?: number
  readonly webhook_dup?: number
  readonly webhook_delay?: Range
  readonly webhook_reorder?: number
  /** Probability that a request opens a burst of 429 answers. */
  readonly burst?: number
  /** Requests refused per burst (default 3), the opening one included. */
  readonly burst_len?: number
  /** The Retry-After of a 429 (rounded up to whole seconds; default 1s). */
  readonly retry_after?: number
  /** Probability that a Retry-After is written as an HTTP date instead of seconds. */
  readonly retry_date?: number
}

export type ProbabilityKind =
  | "error_before"
  | "error_after"
  | "reset_after"
  | "hold_after"
  | "webhook_dup"
  | "webhook_reorder"
  | "burst"
  | "retry_date"

export interface FaultSettings {
  readonly seed: number | undefined
  /** Requests per second over all /v1 endpoints. */
  readonly rate: number | undefined
  readonly endpoints: Readonly<Partial<Record<FaultEndpoint, EndpointFaults>>>
}

export const NO_FAULTS: FaultSettings = { seed: undefined, rate: undefined, endpoints: {} }

const PROBABILITIES = new Set<string>([
  "error_before",
  "error_after",
  "reset_after",
  "hold_after",
  "webhook_dup",
  "webhook_reorder",
  "burst",
  "retry_date"
])
const RANGES = new Set<string>(["latency", "webhook_delay"])
const DURATIONS = new Set<string>(["list_lag", "retry_after"])
const KINDS = [...PROBABILITIES, ...RANGES, ...DURATIONS, "burst_len", "rate"]

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

export const parseDuration = (text: string): Either.Either<number, string> => {
  const match = DURATION.exec(text.trim())
  return match === null
    ? Either.left(`"${text}" is not a duration (write e.g. 200ms, 1s, 5m, 2h)`)
    : Either.right(Math.round(Number(match[1]) * UNIT_MS[match[2]]))
}

const parseRange = (text: string): Either.Either<Range, string> => {
  const parts = text.split("-")
  if (parts.length > 2) return Either.left(`"${text}" is not a duration range (write e.g. 10ms-50ms)`)
  return Either.flatMap(parseDuration(parts[0]), (min) =>
    Either.flatMap(parts.length === 2 ? parseDuration(parts[1]) : Either.right(min), (max) =>
      max < min ? Either.left(`range "${text}" ends before it starts`) : Either.right({ min, max })
    )
  )
}

const parseProbability = (text: string): Either.Either<number, string> => {
  const value = Number(text)
  return text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1
    ? Either.left(`"${text}" is not a probability between 0 and 1`)
    : Either.right(value)
}

const parseValue = (kind: string, value: string): Either.Either<number | Range, string> => {
  if (PROBABILITIES.has(kind)) return parseProbability(value)
  if (RANGES.has(kind)) return parseRange(value)
  if (DURATIONS.has(kind)) return parseDuration(value)
  if (kind === "burst_len") return /^\d+$/.test(value) && Number(value) >= 1 ? Either.right(Number(value)) : Either.left(`"${value}" is not a whole number of at least 1`)
  const rate = Number(value)
  return Number.isFinite(rate) && rate > 0 ? Either.right(rate) : Either.left(`"${value}" is not a positive rate`)
}

type Mutable = { seed: number | undefined; rate: number | undefined; endpoints: Partial<Record<FaultEndpoint, Record<string, unknown>>> }

const applyItem = (settings: Mutable, item: string): string | undefined => {
  const eq = item.indexOf("=")
  if (eq <= 0) return `"${item}": expected ENDPOINT.KIND=VALUE`
  const key = item.slice(0, eq).trim()
  const value = item.slice(eq + 1).trim()
  if (key === "seed") {
    if (!/^\d+$/.test(value)) return `"${item}": seed must be a non-negative integer`
    settings.seed = Number(value)
    return undefined
  }
  const dot = key.indexOf(".")
  const endpoint = dot < 0 ? "*" : key.slice(0, dot)
  const kind = dot < 0 ? key : key.slice(dot + 1)
  if (!(FAULT_ENDPOINTS as ReadonlyArray<string>).includes(endpoint)) {
    return `"${item}": unknown endpoint "${endpoint}" (expected ${FAULT_ENDPOINTS.join(", ")})`
  }
  if (!KINDS.includes(kind)) return `"${item}": unknown fault kind "${kind}" (expected ${KINDS.join(", ")}, or seed)`
  if (kind === "rate" && endpoint !== "*") return `"${item}": rate applies to all endpoints together; write rate=N`
  const parsed = parseValue(kind, value)
  if (Either.isLeft(parsed)) return `"${item}": ${parsed.left}`
  if (kind === "rate") settings.rate = parsed.right as number
  else settings.endpoints[endpoint as FaultEndpoint] = { ...settings.endpoints[endpoint as FaultEndpoint], [kind]: parsed.right }
  return undefined
}

export const parseFaults = (text: string): Either.Either<FaultSettings, string> => {
  const settings: Mutable = { seed: undefined, rate: undefined, endpoints: {} }
  const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
  for (const item of items) {
    const error = applyItem(settings, item)
    if (error !== undefined) return Either.left(`invalid --faults: ${error}`)
  }
  return Either.right(settings as FaultSettings)
}

/** The value of a fault for an endpoint: its own setting, else the `*` one. */
export const faultOf = <K extends keyof EndpointFaults>(
  settings: FaultSettings,
  endpoint: FaultEndpoint,
  kind: K
): EndpointFaults[K] | undefined => settings.endpoints[endpoint]?.[kind] ?? settings.endpoints["*"]?.[kind]
