/** The `--faults` grammar: which kinds exist, where each may go, and how an item becomes a setting. */
import { Either } from "effect"
import { FAULT_ENDPOINTS, type FaultEndpoint, type FaultSettings, LIST_ORDERS, PAGES_LIES } from "./FaultSettings.ts"
import { oneOf, parseBytes, parseDuration, parseEcho, parseJitter, parseMangle, parseProbability, parseRange, parseRate } from "./FaultValues.ts"

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

/**
 * The fault settings (DESIGN section 4): comma-separated `ENDPOINT.KIND=VALUE`, plus `rate=N` and
 * `seed=N`. A key without an endpoint applies to every endpoint (`*`). The listing and commit kinds
 * (`list_jitter`, `pages_lie`, `desc_mangle`, `list_order`, `total_lie`; `commit_delay`,
 * `commit_delay_rate`) and the status answer's lies (`fee_absurd`, `fee_negative`, `foreign_ref`)
 * belong to one endpoint each: written without an endpoint (or with `*`) they go to theirs, and any
 * other endpoint is refused. An item splits at its first `=`, so `desc_mangle=cut=13` works.
 */
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
