/**
 * Result column names to field names (snake_case to camelCase), remembered. @effect/sql renames every
 * column of every result row, and `String.snakeToCamel` builds each name a character at a time: the
 * largest source of garbage in a run (a sampled allocation profile of 4,000 payouts put about a tenth
 * of all bytes allocated there). Our statements name a few dozen columns; the cap only guards memory.
 */
import { String as Str } from "effect"

const known = new Map<string, string>()
const MAX_KNOWN = 1_024

export const fieldName = (column: string): string => {
  const name = known.get(column)
  if (name !== undefined) return name
  const made = Str.snakeToCamel(column)
  if (known.size < MAX_KNOWN) known.set(column, made)
  return made
}
