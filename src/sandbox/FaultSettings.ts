/** What a fault setting is (DESIGN section 4), apart from its parsing: the shape the gate, routes and webhooks read. */
import type { EchoSecret } from "./EchoSecret.ts"

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

/** The value of a fault for an endpoint: its own setting, else the `*` one. */
export const faultOf = <K extends keyof EndpointFaults>(
  settings: FaultSettings,
  endpoint: FaultEndpoint,
  kind: K
): EndpointFaults[K] | undefined => settings.endpoints[endpoint]?.[kind] ?? settings.endpoints["*"]?.[kind]
