// The listing's UTC days: how long one is, how far back the service keeps them, and the days a span covers.

export const DAY_MS = 24 * 60 * 60 * 1000
/** The service keeps 90 days of history. */
export const HISTORY_DAYS = 90

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`)

/** Every UTC day from the one holding `fromMs` to the one holding `toMs`, oldest first. */
export const daysBetween = (fromMs: number, toMs: number): ReadonlyArray<string> => {
  const days: Array<string> = []
  for (let t = dayStart(dayOf(fromMs)); t <= toMs; t += DAY_MS) days.push(dayOf(t))
  return days
}
