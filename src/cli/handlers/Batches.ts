/** `payouts batches`: the account's batches in the state store, with their state and counts. */
import { Console, DateTime, Effect, Option } from "effect"
import { describeHalt } from "../../run/Safeguards.ts"
import { userFormat } from "../../output/Format.ts"
import { PENDING_STATES } from "../../store/RowState.ts"
import { AccountRecords } from "../../store/Sql/Account.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { RetryLinks } from "../../store/Sql/Retries.ts"
import type { batchesCommand } from "../commands/Batches.ts"
import { accountOf } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeLayer } from "../StoreLocation.ts"
import { printJson } from "../Output.ts"
import { type Column, renderTable, screenFit } from "../Table.ts"

/** The approval's record (JSON: the hash and totals approved), shown as it was stored. */
const approvedWhat = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export const batches = ({ connection, jobs, json, state, wide }: Parsed<typeof batchesCommand>) =>
  Effect.gen(function* () {
    const account = yield* accountOf(connection)
    const batches = yield* (yield* Batches).listBatches(account)
    // A `payouts retry` batch names the batch it pays again; a retried batch, its retry.
    const links = yield* (yield* RetryLinks).retryLinks(account)
    const parentOf = new Map(links.map((l) => [l.childBatchId, l.parentBatchId]))
    const childOf = new Map(links.map((l) => [l.parentBatchId, l.childBatchId]))
    // An account halt stops every batch at once: said first, on stderr with --json (stdout stays the list).
    const halt = yield* (yield* AccountRecords).activeHalt(account)
    if (Option.isSome(halt)) {
      const line = `HALTED: ${describeHalt(halt.value)}. No new payout is sent. Lift with: payouts halt --lift --by NAME`
      yield* json ? Console.error(line) : Console.log(line)
    }
    const views = batches.map((b) => {
      const c = b.counts
      const sum = (states: ReadonlyArray<keyof typeof c>) => states.reduce((n, s) => n + c[s], 0)
      return {
        batch_id: b.batchId,
        file: b.fileName,
        state: b.state,
        created_at: DateTime.formatIso(b.createdAt),
        rows: b.total,
        completed: c.completed,
        // Apart, as the run's end and the report count them: a cancelled payout is not a failed one.
        failed: c.failed,
        cancelled: c.cancelled,
        expired: c.expired,
        refunded: c.refunded,
        pending: sum(PENDING_STATES),
        unknown: c.unknown,
        waiting: c.validated,
        skipped: c.skipped,
        rejected: c.rejected,
        parent: parentOf.get(b.batchId) ?? null,
        retried_as: childOf.get(b.batchId) ?? null,
        ...(b.pauseReason === null ? {} : { pause_reason: b.pauseReason }),
        ...(b.approvedBy === null
          ? {}
          : {
              approved_by: b.approvedBy,
              approved_at: b.approvedAt === null ? null : DateTime.formatIso(b.approvedAt),
              approved_what: approvedWhat(b.approvedWhat)
            })
      }
    })
    if (json) return yield* printJson(views)
    if (views.length === 0) return yield* Console.log("No batches in this account's state store.")
    type View = (typeof views)[number]
    const f = yield* userFormat
    const col = (header: string, value: (v: View) => unknown, align: "left" | "right" = "right", fitting: Pick<Column<View>, "drop" | "shrink"> = {}): Column<View> => ({
      ...fitting,
      header,
      value: (v) => {
        const x = value(v)
        return typeof x === "number" ? f.count(x) : String(x)
      },
      align
    })
    yield* Console.log(
      renderTable(
        [
          col("batch", (v) => v.batch_id, "left"),
          col("file", (v) => v.file, "left", { shrink: true }),
          col("state", (v) => v.state, "left"),
          col("approved by", (v) => ("approved_by" in v ? v.approved_by : "-"), "left", { drop: 2 }),
          col("created", (v) => f.time(v.created_at), "left"),
          col("rows", (v) => v.rows),
          col("completed", (v) => v.completed),
          col("failed", (v) => v.failed),
          col("cancelled", (v) => v.cancelled, "right", { drop: 3 }),
          col("expired", (v) => v.expired, "right", { drop: 8 }),
          col("refunded", (v) => v.refunded, "right", { drop: 9 }),
          col("pending", (v) => v.pending, "right", { drop: 1 }),
          col("unknown", (v) => v.unknown, "right", { drop: 0 }),
          col("waiting", (v) => v.waiting, "right", { drop: 7 }),
          col("skipped", (v) => v.skipped, "right", { drop: 6 }),
          col("rejected", (v) => v.rejected, "right", { drop: 5 }),
          col("retry of", (v) => v.parent ?? "-", "left", { drop: 4 })
        ],
        views,
        screenFit(wide)
      )
    )
    for (const v of views) if (v.pause_reason !== undefined) yield* Console.log(`${v.batch_id} paused: ${v.pause_reason} (payouts resume ${v.batch_id})`)
  }).pipe(Effect.provide(storeLayer(state, jobs)))
