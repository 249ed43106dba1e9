/**
 * The multi-worker soak's checks, once the workers have stopped: where each batch ended, every row of
 * every CSV against the sandbox's payouts (by the `[token]` the store gave the row) and against the
 * ledger the workers wrote, the sandbox's money invariants, and the account's request rate as the
 * relay in front of the sandbox saw it.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import Papa from "papaparse"
import { FINAL_ROW_STATES } from "../../src/store/RowState.ts"
import type { StoreRow } from "./db.ts"
import type { Batch } from "./drops.ts"
import { burstsAbove, maxInWindow, type SandboxPayout } from "./sandbox.ts"

export const PLACES = ["done", "attention", "rejected", "processing", "awaiting-approval"] as const

export interface Verdict {
  readonly places: Readonly<Record<string, number>>
  readonly rows: number
  readonly payouts: number
  readonly duplicates: number
  readonly lost: number
  readonly mismatched: number
  readonly invariantsOk: boolean
  /** The most /v1 requests in any 1 s window, and in any 5 s window divided by 5 (blind to stalls of the relay). */
  readonly maxPerSecond: number
  readonly maxPerSecondOver5s: number
  /** The 1 s windows above the rate: when (ms since the epoch) and how many requests. */
  readonly bursts: ReadonlyArray<{ readonly at: number; readonly count: number }>
  readonly requests: number
  readonly problems: ReadonlyArray<string>
}

/** Where a batch file is: its folder under the jobs folder, or `jobs` if never picked up, or `missing`. */
export const placeOf = (dir: string, name: string) => PLACES.find((p) => existsSync(join(dir, p, name))) ?? (existsSync(join(dir, name)) ? "jobs" : "missing")

const readLedger = (file: string) =>
  existsSync(file) ? Papa.parse<Record<string, string>>(readFileSync(file, "utf8"), { header: true, skipEmptyLines: true }).data : []

const tokenOf = (description: string) => /^\[([^\]]+)\]/.exec(description)?.[1]

export const judge = (p: {
  readonly dir: string
  readonly batches: ReadonlyArray<Batch>
  readonly payouts: ReadonlyArray<SandboxPayout>
  readonly storeRows: ReadonlyArray<StoreRow>
  readonly invariants: { readonly ok: boolean; readonly violations?: ReadonlyArray<string> }
  readonly requestTimes: ReadonlyArray<number>
  readonly rate: number
}): Verdict => {
  const problems: Array<string> = []
  const places: Record<string, number> = {}
  const ledger = new Map<string, Record<string, string>>()
  for (const batch of p.batches) {
    const place = placeOf(p.dir, batch.name)
    places[place] = (places[place] ?? 0) + 1
    if (place !== "done") problems.push(`${batch.name} ended in ${place}/`)
    for (const row of readLedger(join(p.dir, place, batch.name.replace(/\.csv$/, ".ledger.csv")))) ledger.set(row.id, row)
  }
  const storeById = new Map(p.storeRows.filter((r) => r.rowId !== null).map((r) => [r.rowId!, r]))
  const ourTokens = new Set(p.storeRows.map((r) => r.token))
  const byToken = new Map<string, Array<SandboxPayout>>()
  let duplicates = 0
  for (const payout of p.payouts) {
    const token = tokenOf(payout.description)
    if (token === undefined || !ourTokens.has(token)) {
      duplicates++
      problems.push(`payout ${payout.reference} carries no token of the soak's rows: ${payout.description}`)
      continue
    }
    byToken.set(token, [...(byToken.get(token) ?? []), payout])
  }
  for (const [token, list] of byToken) {
    if (list.length < 2) continue
    duplicates += list.length - 1
    const row = p.storeRows.find((r) => r.token === token)
    problems.push(`DUPLICATE row ${row?.rowId ?? "?"} (token ${token}) paid ${list.length} times: ${list.map((x) => `${x.reference} ${x.status}`).join(", ")}`)
  }
  const final = new Set<string>(FINAL_ROW_STATES)
  let lost = 0
  let mismatched = 0
  let rows = 0
  for (const batch of p.batches) {
    for (const id of batch.ids) {
      rows++
      const stored = storeById.get(id)
      const paid = stored === undefined ? [] : (byToken.get(stored.token) ?? [])
      const line = ledger.get(id)
      const status = line?.status ?? stored?.state ?? "absent"
      if (paid.length === 0 && !final.has(status)) {
        lost++
        problems.push(`LOST ${batch.name} row ${id}: no payout carries its token ${stored?.token ?? "(not in the store)"}; ledger ${line?.status ?? "(no ledger line)"}, store ${stored?.state ?? "(absent)"}${line?.error ? `: ${line.error}` : ""}`)
        continue
      }
      if (line === undefined) {
        mismatched++
        problems.push(`${batch.name} row ${id}: no ledger line (store ${stored?.state ?? "absent"}; sandbox ${paid.map((x) => `${x.status} ${x.reference}`).join(", ") || "nothing"})`)
        continue
      }
      const match = paid.find((x) => x.reference === line.reference)
      if (paid.length === 0 ? line.reference !== "" : match === undefined || match.status.toLowerCase() !== line.status) {
        mismatched++
        problems.push(`${batch.name} row ${id}: ledger ${line.status} ${line.reference || "(no reference)"}; sandbox ${paid.map((x) => `${x.status} ${x.reference}`).join(", ") || "nothing"}`)
      }
    }
  }
  if (!p.invariants.ok) problems.push(`sandbox invariants violated: ${(p.invariants.violations ?? []).join("; ")}`)
  return {
    places,
    rows,
    payouts: p.payouts.length,
    duplicates,
    lost,
    mismatched,
    invariantsOk: p.invariants.ok,
    maxPerSecond: maxInWindow(p.requestTimes, 1000),
    maxPerSecondOver5s: maxInWindow(p.requestTimes, 5000) / 5,
    bursts: burstsAbove(p.requestTimes, p.rate),
    requests: p.requestTimes.length,
    problems
  }
}
