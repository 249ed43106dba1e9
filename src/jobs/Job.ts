/**
 * One batch file in `processing/`, taken to its next place: run as `payouts run` would and moved
 * with its outputs to `done/` or `rejected/`; or, under approval, validated and preflighted and
 * moved to `awaiting-approval/`. A file whose run is incomplete (or paused) stays for a later pass.
 */
import { FileSystem } from "@effect/platform"
import { Clock, DateTime, Effect, Option } from "effect"
import { basename } from "node:path"
import { EXIT_ATTENTION, EXIT_FINISHED_WITH_FAILURES, EXIT_OK, EXIT_REFUSED } from "../batch/ExitCode.ts"
import { fileBatchId } from "../batch/Intake.ts"
import { writeSummary } from "../batch/Ledger.ts"
import type { RunResult } from "../batch/Runner.ts"
import { amendSummary } from "../batch/SummaryFile.ts"
import { StateStore } from "../store/StateStore.ts"
import { approvalOf, writeApproval } from "./Approval.ts"
import { type JobFolder, moveBatch, outputOf } from "./JobFolder.ts"
import { scanFile } from "./Scan.ts"

export type RunFile<E, R> = (file: string, dryRun: boolean) => Effect.Effect<RunResult, E, R>

export interface JobSettings {
  readonly accountId: string
  readonly folder: JobFolder
  readonly requireApproval: boolean
  readonly feePercent: number
}

export type JobOutcome =
  | { readonly _tag: "Done"; readonly file: string; readonly exitCode: number }
  | { readonly _tag: "Rejected"; readonly file: string; readonly exitCode: number; readonly outcome: string }
  | { readonly _tag: "Awaiting"; readonly file: string; readonly batchId: string }
  | { readonly _tag: "Held"; readonly batchId: string; readonly reason: string }
  | { readonly _tag: "Incomplete"; readonly batchId: string; readonly exitCode: number; readonly outcome: string }
  | { readonly _tag: "Attention"; readonly file: string; readonly batchId: string; readonly reasons: ReadonlyArray<string> }

const outcomeOf = (result: RunResult) => (typeof result.summary.outcome === "string" ? result.summary.outcome : "")

/** After a move the summary names where the files now are. */
const pointSummaryAt = (csv: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const summary = outputOf(csv, ".summary.json")
    if (!(yield* fs.exists(summary))) return
    const fields: Record<string, string> = { file: csv }
    for (const [key, suffix] of [["ledger", ".ledger.csv"], ["report", ".report.html"], ["errors_file", ".errors.csv"]] as const) {
      const path = outputOf(csv, suffix)
      if (yield* fs.exists(path)) fields[key] = path
    }
    yield* amendSummary(summary, fields)
  }).pipe(Effect.catchAll((e) => Effect.logWarning(`summary of ${basename(csv)} not updated: ${String(e)}`)))

const awaitApproval = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: string) =>
  Effect.gen(function* () {
    const { folder } = settings
    const dry = yield* run(csv, true)
    if (dry.exitCode !== EXIT_OK) {
      yield* writeSummary(outputOf(csv, ".summary.json"), dry.summary)
      const moved = yield* moveBatch(csv, folder.processing, folder.rejected)
      yield* pointSummaryAt(moved)
      return { _tag: "Rejected", file: moved, exitCode: dry.exitCode, outcome: outcomeOf(dry) } satisfies JobOutcome
    }
    const plan = yield* scanFile(csv, settings.feePercent)
    const now = yield* Clock.currentTimeMillis
    yield* writeApproval(outputOf(csv, ".approval.json"), {
      batch_id: batchId,
      file: basename(csv),
      status: "awaiting",
      submitted_at: DateTime.formatIso(DateTime.unsafeMake(now)),
      rows: plan.rows,
      currencies: plan.byCurrency,
      preflight: outcomeOf(dry)
    })
    const moved = yield* moveBatch(csv, folder.processing, folder.awaiting)
    return { _tag: "Awaiting", file: moved, batchId } satisfies JobOutcome
  })

/** A batch only a person can settle (exit 5) goes to `attention/` with its outputs and a note of what to resolve. */
const needsPerson = (csv: string, folder: JobFolder, batchId: string, result: RunResult) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const alarms = (Array.isArray(result.summary.alarms) ? result.summary.alarms : []) as ReadonlyArray<{ line?: number; reason?: string; references?: ReadonlyArray<string> }>
    const account = typeof result.summary.account_alarm === "string" ? [`account: ${result.summary.account_alarm}`] : []
    const reasons = [
      ...account,
      ...alarms.map((a) => `line ${a.line}: ${a.reason ?? "alarm"}${a.references !== undefined && a.references.length > 0 ? ` (${a.references.join(", ")})` : ""}`)
    ]
    const note = [
      `Batch ${batchId} (${basename(csv)}) needs a person: its remaining rows cannot be settled automatically.`,
      ...reasons.map((r) => `  ${r}`),
      "",
      `See the evidence:   payouts resolve ${batchId} --by NAME`,
      `Then decide a row:  payouts resolve ${batchId} --line N --by NAME (--adopt REFERENCE | --resend | --abandon) --reason TEXT`,
      `After checking the listing by hand: payouts resolve ${batchId} --listing-ok --by NAME --reason TEXT`,
      "Move the file back into the jobs folder's processing/ (or run it with payouts run) to finish the batch."
    ].join("\n")
    yield* fs.writeFileString(outputOf(csv, ".attention.txt"), `${note}\n`, { mode: 0o600 })
    const moved = yield* moveBatch(csv, folder.processing, folder.attention)
    yield* pointSummaryAt(moved)
    return { _tag: "Attention", file: moved, batchId, reasons } satisfies JobOutcome as JobOutcome
  })

export const processJob = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const { folder } = settings
    const batchId = yield* fileBatchId(csv)
    const batch = yield* store.getBatch(settings.accountId, batchId)
    if (Option.isSome(batch) && batch.value.state === "paused") {
      return { _tag: "Held", batchId, reason: batch.value.pauseReason ?? "paused" } satisfies JobOutcome as JobOutcome
    }
    const approval = yield* approvalOf(csv)
    const approved = Option.isSome(approval) && approval.value.status === "approved"
    if (settings.requireApproval && !approved && Option.isNone(batch)) return yield* awaitApproval(settings, run, csv, batchId)

    const result = yield* run(csv, false)
    const outcome = outcomeOf(result)
    if (result.exitCode === EXIT_ATTENTION) return yield* needsPerson(csv, folder, batchId, result)
    const finished = result.exitCode === EXIT_OK || result.exitCode === EXIT_FINISHED_WITH_FAILURES
    const refused = result.exitCode === EXIT_REFUSED && outcome.startsWith("refused")
    if (!finished && !refused) return { _tag: "Incomplete", batchId, exitCode: result.exitCode, outcome } satisfies JobOutcome
    const fs = yield* FileSystem.FileSystem
    const summary = outputOf(csv, ".summary.json")
    if (approved && (yield* fs.exists(summary))) {
      const a = approval.value
      yield* amendSummary(summary, { approval: { by: a.approved_by ?? "", at: a.approved_at ?? "" } })
    }
    const moved = yield* moveBatch(csv, folder.processing, finished ? folder.done : folder.rejected)
    yield* pointSummaryAt(moved)
    return finished
      ? ({ _tag: "Done", file: moved, exitCode: result.exitCode } satisfies JobOutcome)
      : ({ _tag: "Rejected", file: moved, exitCode: result.exitCode, outcome } satisfies JobOutcome)
  })
