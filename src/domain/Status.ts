/** Transaction statuses; only pending and processing are still moving. */
export const TERMINAL_STATUSES = ["completed", "failed", "cancelled", "expired", "refunded"] as const
export const NON_TERMINAL_STATUSES = ["pending", "processing"] as const

export type TerminalStatus = (typeof TERMINAL_STATUSES)[number]

const terminal = new Set<string>(TERMINAL_STATUSES)

export const isTerminal = (status: string): status is TerminalStatus => terminal.has(status)

/** Status order, so a late poll or a replayed webhook never moves a row backwards. */
const RANK: Record<string, number> = {
  pending: 1,
  processing: 2,
  completed: 3,
  failed: 3,
  cancelled: 3,
  expired: 3,
  refunded: 4
}

export const statusRank = (status: string): number => RANK[status] ?? 0

export const isForward = (from: string, to: string): boolean =>
  from !== to && statusRank(to) > statusRank(from) && !(isTerminal(from) && to !== "refunded")
