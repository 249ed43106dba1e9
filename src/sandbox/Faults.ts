/**
 * Fault settings (DESIGN section 4): comma-separated `ENDPOINT.KIND=VALUE`, plus `rate=N` and
 * `seed=N`. A key without an endpoint applies to every endpoint (`*`). The listing and commit kinds
 * (`list_jitter`, `pages_lie`, `desc_mangle`, `list_order`, `total_lie`; `commit_delay`,
 * `commit_delay_rate`) and the status answer's lies (`fee_absurd`, `fee_negative`, `foreign_ref`)
 * belong to one endpoint each: written without an endpoint (or with `*`) they go to theirs, and any
 * other endpoint is refused. An item splits at its first `=`, so `desc_mangle=cut=13` works.
 */
import { Either } from "effect"
import { ECHO_FORMS, type EchoSecret } from "./EchoSecret.ts"

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
  /** transactions: extra listing delay per transaction, drawn (seeded, fixed) in the range. */
  readonly list_jitter?: Range
  /** transactions: how the pagination misleads. */
  readonly pages_lie?: PagesLie
  /** transactions: how descriptions are shown in the listing. */
  readonly desc_mangle?: DescMangle
  /** transactions: the listing's order (default newest). */
  readonly list_order?: ListOrder
  /** payout: how long (real time, like latency) a POST is held before the payout is created. */
  readonly commit_delay?: Range
  /** payout: share of POSTs held by commit_delay (default 1). */
  readonly commit_delay_rate?: number
  /** status: share of payouts (fixed per payout by seed) whose status answers a fee of 1e300. */
  readonly fee_absurd?: number
  /** status: share of payouts whose status answers a negative fee. */
  readonly fee_negative?: number
  /** status: share of payouts whose status answers another reference's record, 1000x the amount, completed. */
  readonly foreign_ref?: number
  /** transactions: the `pagination.total` claimed (and its total_pages), whatever the listing holds. */
  readonly total_lie?: number
  /** Every answer padded to this many bytes, streamed without a length. */
  readonly huge_body?: number
  /** The caller's credentials echoed in a spelling (EchoSecret.ts). */
  readonly echo_secret?: EchoSecret
}

export const PAGES_LIES = ["one", "emptymid", "dupref"] as const
export type PagesLie = (typeof PAGES_LIES)[number]

export const LIST_ORDERS = ["oldest", "newest", "shuffle"] as const
export type ListOrder = (typeof LIST_ORDERS)[number]

export type DescMangle = { readonly kind: "cut"; readonly length: number } | { readonly kind: "strip" } | { readonly kind: "upper" }

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
/** Shares (0..1) that are not drawn per request by the gate: commit_delay's, and the answers' lies (fixed per payout). */
const ANSWER_SHARES = new Set<string>(["commit_delay_rate", "fee_absurd", "fee_negative", "foreign_ref"])
const DURATIONS = new Set<string>(["list_lag", "retry_after"])
/** Kinds that make sense on one endpoint only: written bare (or with `*`) they go to it. */
const OWNER: Record<string, FaultEndpoint> = {
  list_jitter: "transactions",
  pages_lie: "transactions",
  desc_mangle: "transactions",
  list_order: "transactions",
  commit_delay: "payout",
  commit_delay_rate: "payout",
  fee_absurd: "status",
  fee_negative: "status",
  foreign_ref: "status",
  total_lie: "transactions"
}
const KINDS = [...PROBABILITIES, ...RANGES, ...DURATIONS, "burst_len", "rate", "huge_body", "echo_secret", ...Object.keys(OWNER)]

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

/** `8s` means 0..8s; `2s-8s` means 2s..8s. */
const parseJitter = (text: string): Either.Either<Range, string> =>
  text.includes("-") ? parseRange(text) : Either.map(parseDuration(text), (max) => ({ min: 0, max }))

const oneOf = <A extends string>(choices: ReadonlyArray<A>, text: string): Either.Either<A, string> => {
  const found = choices.find((choice) => choice === text)
  return found === undefined ? Either.left(`"${text}" is not one of ${choices.join(", ")}`) : Either.right(found)
}

const parseMangle = (text: string): Either.Either<DescMangle, string> => {
  if (text === "strip" || text === "upper") return Either.right({ kind: text })
  const cut = /^cut=(\d+)$/.exec(text)
  if (cut !== null && Number(cut[1]) >= 1) return Either.right({ kind: "cut", length: Number(cut[1]) })
  return Either.left(`"${text}" is not one of cut=N (N at least 1), strip, upper`)
}

/** `FORM` or `FORM:P`, P the share of requests refused with the echo (default 1). */
const parseEcho = (text: string): Either.Either<EchoSecret, string> => {
  const [formText, share] = text.split(":", 2)
  return Either.flatMap(oneOf(ECHO_FORMS, formText.trim()), (form) =>
    Either.map(share === undefined ? Either.right(1) : parseProbability(share), (refuse) => ({ form, refuse }))
  )
}

const BYTE_UNITS: Record<string, number> = { "": 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2 }

/** `300000`, `256k`, `200m` (KiB, MiB). */
const parseBytes = (text: string): Either.Either<number, string> => {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim())
  const unit = match === null ? undefined : BYTE_UNITS[match[2].toLowerCase()]
  return match === null || unit === undefined || Number(match[1]) < 1
    ? Either.left(`"${text}" is not a size in bytes (write e.g. 300000, 256k, 200m)`)
    : Either.right(Number(match[1]) * unit)
}

const parseProbability = (text: string): Either.Either<number, string> => {
  const value = Number(text)
  return text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1
    ? Either.left(`"${text}" is not a probability between 0 and 1`)
    : Either.right(value)
}

const parseValue = (kind: string, value: string): Either.Either<unknown, string> => {
  if (PROBABILITIES.has(kind) || ANSWER_SHARES.has(kind)) return parseProbability(value)
  if (RANGES.has(kind)) return parseRange(value)
  if (DURATIONS.has(kind)) return parseDuration(value)
  switch (kind) {
    case "list_jitter":
      return parseJitter(value)
    case "commit_delay":
      return parseRange(value)
    case "pages_lie":
      return oneOf(PAGES_LIES, value)
    case "list_order":
      return oneOf(LIST_ORDERS, value)
    case "desc_mangle":
      return parseMangle(value)
    case "echo_secret":
      return parseEcho(value)
  }
  if (kind === "huge_body") return parseBytes(value)
  if (kind === "total_lie") return /^\d+$/.test(value) && Number(value) >= 1 ? Either.right(Number(value)) : Either.left(`"${value}" is not a whole number of at least 1`)
  if (kind === "burst_len") return /^\d+$/.test(value) && Number(value) >= 1 ? Either.right(Number(value)) : Either.left(`"${value}" is not a whole number of at least 1`)
  return parseRate(value)
}

const parseRate = (value: string): Either.Either<number, string> => {
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
  const named = FAULT_ENDPOINTS.find((known) => known === endpoint)
  if (named === undefined) {
    return `"${item}": unknown endpoint "${endpoint}" (expected ${FAULT_ENDPOINTS.join(", ")})`
  }
  if (!KINDS.includes(kind)) return `"${item}": unknown fault kind "${kind}" (expected ${KINDS.join(", ")}, or seed)`
  if (kind === "rate" && endpoint !== "*") return `"${item}": rate applies to all endpoints together; write rate=N`
  const owner = OWNER[kind]
  if (owner !== undefined && endpoint !== "*" && endpoint !== owner) {
    return `"${item}": ${kind} applies to the ${owner} endpoint only; write ${owner}.${kind}=...`
  }
  const target: FaultEndpoint = owner ?? named
  const set = (k: string, v: unknown) => {
    settings.endpoints[target] = { ...settings.endpoints[target], [k]: v }
  }
  // DESIGN's short form of commit_delay: `P:D`, the share of POSTs held and for how long.
  const share = kind === "commit_delay" ? /^([^:]*):(.*)$/.exec(value) : null
  if (share !== null) {
    const rate = parseProbability(share[1])
    if (Either.isLeft(rate)) return `"${item}": ${rate.left}`
    const delay = parseRange(share[2])
    if (Either.isLeft(delay)) return `"${item}": ${delay.left}`
    set("commit_delay", delay.right)
    set("commit_delay_rate", rate.right)
    return undefined
  }
  if (kind === "rate") {
    const rate = parseRate(value)
    if (Either.isLeft(rate)) return `"${item}": ${rate.left}`
    settings.rate = rate.right
    return undefined
  }
  const parsed = parseValue(kind, value)
  if (Either.isLeft(parsed)) return `"${item}": ${parsed.left}`
  set(kind, parsed.right)
  return undefined
}

export const parseFaults = (text: string): Either.Either<FaultSettings, string> => {
  const settings: Mutable = { seed: undefined, rate: undefined, endpoints: {} }
  const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
  for (const item of items) {
    const error = applyItem(settings, item)
    if (error !== undefined) return Either.left(`invalid --faults: ${error}`)
  }
  const payout = settings.endpoints.payout
  if (payout?.commit_delay_rate !== undefined && payout.commit_delay === undefined) {
    return Either.left("invalid --faults: payout.commit_delay_rate needs payout.commit_delay=DURATION (how long to hold)")
  }
  // The one cast left: each value went through parseValue for its kind, so the builder's loose record
  // holds exactly what EndpointFaults names (a schema of every kind would say the same again).
  return Either.right(settings as FaultSettings)
}

/** The value of a fault for an endpoint: its own setting, else the `*` one. */
export const faultOf = <K extends keyof EndpointFaults>(
  settings: FaultSettings,
  endpoint: FaultEndpoint,
  kind: K
): EndpointFaults[K] | undefined => settings.endpoints[endpoint]?.[kind] ?? settings.endpoints["*"]?.[kind]

/**
 * A number in [0, 1) fixed by the seed, a salt and a key (a transaction's seq): the same listing
 * draws the same value every time, whatever was asked before. FNV-1a, then a murmur3 finaliser.
 */
export const seededUnit = (seed: number, salt: string, key: number): number => {
  let h = 0x811c9dc5
  for (const ch of `${seed}:${salt}:${key}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 2 ** 32
}
