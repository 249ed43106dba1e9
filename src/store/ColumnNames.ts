/**
 * Result column names to field names (snake_case to camelCase), remembered per client: @effect/sql
 * renames every column of every row, and `String.snakeToCamel` builds each name a character at a time.
 * Our statements name a few dozen columns; the cap only guards memory.
 */
import { String as Str } from "effect"

const MAX_KNOWN = 1_024

export const fieldNames = (): ((column: string) => string) => {
  const known = new Map<string, string>()
  return (column) => {
    const name = known.get(column)
    if (name !== undefined) return name
    const made = Str.snakeToCamel(column)
    if (known.size < MAX_KNOWN) known.set(column, made)
    return made
  }
}
