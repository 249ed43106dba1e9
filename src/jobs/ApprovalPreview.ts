/**
 * The first rows of a batch waiting for approval, as a person checks them before approving: read
 * through the same intake as the run (so what is shown is what would be paid), phones masked.
 */
import { Chunk, Effect, Stream } from "effect"
import { basename } from "node:path"
import { maskPhone } from "../domain/Phone.ts"
import { SharedPhones } from "../intake/SharedPhones.ts"
import { validateCsvFile } from "../intake/Validate.ts"

export interface PreviewRow {
  readonly line: number
  readonly id: string | undefined
  readonly name: string
  /** Masked. */
  readonly phone: string
  readonly operator: string
  /** Undefined for a row whose amount did not parse. */
  readonly amountMinor: number | undefined
  readonly currency: string
  /** Why the run would refuse the row; empty for a payable row. */
  readonly problems: ReadonlyArray<string>
}

/** The first `count` rows of the file; none when it cannot be read (it is shown as its request says). */
export const previewRows = (csv: string, count: number) =>
  validateCsvFile(csv, { fileName: basename(csv), allowRepeats: true, sharedPhones: new SharedPhones(true) }).pipe(
    Stream.take(count),
    Stream.map((row): PreviewRow =>
      row._tag === "ValidRow"
        ? { line: row.line, id: row.id, name: row.name, phone: maskPhone(row.phone), operator: row.operator, amountMinor: row.amountMinor, currency: row.currency, problems: [] }
        : {
          line: row.line,
          id: row.id,
          name: row.cells.name ?? "",
          phone: maskPhone(row.cells.phone ?? ""),
          operator: row.cells.operator ?? "",
          amountMinor: row.amountMinor,
          currency: (row.cells.currency ?? "").toUpperCase(),
          problems: row.errors.map((e) => e.reason)
        }
    ),
    Stream.runCollect,
    Effect.map(Chunk.toReadonlyArray),
    Effect.orElseSucceed((): ReadonlyArray<PreviewRow> => [])
  )
