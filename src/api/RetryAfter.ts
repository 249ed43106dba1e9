import { Option } from "effect"

export const MAX_RETRY_AFTER_MS = 60_000

const DELTA_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/
const LOOKS_LIKE_HTTP_DATE = /^\s*[A-Za-z]{3,9},?\s.*\d{1,2}:\d{2}:\d{2}/

/**
 * Retry-After as milliseconds from `nowMs`: delta seconds or an HTTP date, capped at `capMs`.
 * A date in the past means "now" (0); anything else is ignored.
 */
export const parseRetryAfter = (
  value: string | null | undefined,
  nowMs: number,
  capMs: number = MAX_RETRY_AFTER_MS
): Option.Option<number> => {
  if (value === undefined || value === null) return Option.none()
  const seconds = DELTA_SECONDS.exec(value)
  if (seconds !== null) return Option.some(Math.min(capMs, Math.round(Number(seconds[1]) * 1000)))
  if (!LOOKS_LIKE_HTTP_DATE.test(value)) return Option.none()
  const at = Date.parse(value)
  if (Number.isNaN(at)) return Option.none()
  return Option.some(Math.min(capMs, Math.max(0, at - nowMs)))
}
