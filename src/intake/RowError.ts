/** One thing wrong with an input row, or with the whole file: where it is and why. */
export interface RowError {
  /** Physical line (header = 1); undefined for a problem of the whole file. */
  readonly line: number | undefined
  /** The column as written in the header; empty when the problem is the whole row. */
  readonly column: string
  readonly value: string
  readonly reason: string
}
