/** Transaction statuses; only pending and processing are still moving. */
export const TERMINAL_STATUSES = ["completed", "failed", "cancelled", "expired", "refunded"] as const
export const NON_TERMINAL_STATUSES = ["pending", "processing"] as const

export type TerminalStatus = (typeof TERMINAL_STATUSES)[number]

const terminal = new Set<string>(TERMINAL_STATUSES)

export const isTerminal = (status: string): status is TerminalStatus => terminal.has(status)

/** Status order, so a late poll or a replayed webhook never moves a row backwards. */
const RANK: Readonly<Record<string, number>> = {
  pending: 1,
  processing: 2,
  completed: 3,
  failed: 3,
  cancelled: 3,
  expired: 3,
  refunded: 4
}

export const statusRank = (status: string): number => (Object.hasOwn(RANK, status) ? RANK[status] : 0)

/**
 * A terminal status moves on only from completed to refunded (no money moved on a failed, cancelled
 * or expired payout); a pending or processing row may jump to any later status, polls skip states.
 */
export const isForward = (from: string, to: string): boolean =>
  isTerminal(from)
    ? from === "completed" && to === "refunded"
    : statusRank(to) > statusRank(from)
