/**
 * `payouts workers`: the `watch` workers sharing this account's store (DESIGN 12), with their last
 * heartbeat, the files they run and the batches whose lease their process holds.
 */
import { Console, DateTime, Effect } from "effect"
import { heldBy, workers as workersOf } from "../../jobs/Workers.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import type { workersCommand } from "../commands/Workers.ts"
import { accountOf } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { storeLayer } from "../StoreLocation.ts"
import { userFormat } from "../../output/Format.ts"
import { type Column, renderTable, screenFit } from "../Table.ts"

const ago = (ms: number) => (ms < 1_000 ? "now" : ms < 120_000 ? `${Math.round(ms / 1_000)}s ago` : `${Math.round(ms / 60_000)}m ago`)

export const workers = ({ connection, jobs, json, state, wide }: Parsed<typeof workersCommand>) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const account = yield* accountOf(connection)
    const found = yield* workersOf(account)
    const leased = (yield* batches.listBatches(account)).filter((b) => b.leaseOwner !== null)
    const views = found.map((w) => ({
      worker: w.owner,
      host: w.host,
      pid: w.pid,
      state: w.live ? "live" : "lost",
      started_at: DateTime.formatIso(DateTime.unsafeMake(w.startedAt)),
      last_heartbeat_ms_ago: w.silentMs,
      running: w.running,
      batches: leased.filter((b) => heldBy(w.owner, b.leaseOwner)).map((b) => b.batchId)
    }))
    if (json) return yield* printJson(views)
    if (views.length === 0) return yield* Console.log("No worker has beaten in this account's state store (start one with: payouts watch DIR).")
    type View = (typeof views)[number]
    const f = yield* userFormat
    const col = (header: string, value: (v: View) => string, fitting: Pick<Column<View>, "drop" | "shrink"> = {}): Column<View> => ({ header, value, align: "left", ...fitting })
    yield* Console.log(
      renderTable(
        [
          col("worker", (v) => v.worker),
          col("state", (v) => v.state),
          col("last heartbeat", (v) => ago(v.last_heartbeat_ms_ago)),
          col("started", (v) => f.time(v.started_at), { drop: 1 }),
          col("batches", (v) => (v.batches.length === 0 ? "-" : v.batches.join(", ")), { shrink: true }),
          col("files", (v) => (v.running.length === 0 ? "-" : v.running.join(", ")), { shrink: true })
        ],
        views,
        screenFit(wide)
      )
    )
    const lost = views.filter((v) => v.state === "lost").length
    if (lost > 0) yield* Console.log(`${lost} worker(s) lost: no heartbeat within their time to live; their batches pass to a live worker once their leases expire.`)
  }).pipe(Effect.provide(storeLayer(state, jobs)))
