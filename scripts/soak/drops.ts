/**
 * The batches of the multi-worker soak: XAF rows on ordinary Cameroon mobiles (they succeed after the
 * payout delay), every row with an id unique over the whole soak, each batch dropped whole into the
 * jobs folder (written under a hidden name, then renamed), half of them at once and the rest later.
 */
import { renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export interface Batch {
  readonly name: string
  readonly ids: ReadonlyArray<string>
  /** When it is dropped, in ms from the start of the soak. */
  readonly at: number
  readonly csv: string
}

/** A valid Cameroon mobile that is not a test number, distinct for every row of the soak. */
const phoneOf = (n: number) => `+23767${String(1_000_000 + n).slice(-7)}`

export const planBatches = (count: number, rows: number, random: () => number): ReadonlyArray<Batch> => {
  const atOnce = Math.ceil(count / 2)
  const spread = Math.max(30_000, count * 8_000)
  let n = 0
  return Array.from({ length: count }, (_, b) => {
    const ids: Array<string> = []
    const lines = ["id,amount,currency,operator,phone,name,email"]
    for (let i = 0; i < rows; i++) {
      const id = `B${b + 1}-R${i + 1}`
      ids.push(id)
      n++
      const amount = 500 + Math.floor(random() * 9_500)
      const operator = random() < 0.5 ? "carrier1_cm" : "carrier2_cm"
      lines.push(`${id},${amount},XAF,${operator},${phoneOf(n)},Seller ${n},seller${n}@example.com`)
    }
    const at = b < atOnce ? 0 : 5_000 + Math.floor(random() * spread)
    return { name: `batch-${String(b + 1).padStart(2, "0")}.csv`, ids, at, csv: `${lines.join("\n")}\n` }
  })
}

export const dropBatch = (dir: string, batch: Batch) => {
  const hidden = join(dir, `.${batch.name}.part`)
  writeFileSync(hidden, batch.csv)
  renameSync(hidden, join(dir, batch.name))
}
