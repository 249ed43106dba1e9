/**
 * The values the transaction listing filters by, as plain lists: Schemas.ts makes its literals of
 * them, and the `transactions` command offers them as choices without building every schema of the
 * API at each start (`--help` included).
 */
export const TRANSACTION_TYPES = ["payin", "payout", "adjustment"] as const

export const TRANSACTION_STATUSES = ["pending", "processing", "completed", "failed", "cancelled", "expired", "refunded"] as const
