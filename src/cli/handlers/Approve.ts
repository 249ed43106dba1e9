import { Console, Effect, Option } from "effect"
import { ApprovalError, approve as approveBatch, reject as rejectBatch } from "../../jobs/Approval.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import type { approveCommand, rejectCommand } from "../commands/Approve.ts"
import { UsageError } from "../Errors.ts"
import { JobNotesLive, refusalText } from "../JobNoteText.ts"
import type { Parsed } from "../Lazy.ts"
import { userFormat } from "../../output/Format.ts"

const asUsage = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.mapError((e: unknown) => (e instanceof ApprovalError ? new UsageError({ reason: refusalText(e.refusal) }) : e)), Effect.provide(JobNotesLive))

export const approve = ({ batch, by, jobs }: Parsed<typeof approveCommand>) =>
  Effect.gen(function* () {
    const { approval, file } = yield* approveBatch(jobFolder(jobs), batch, by)
    const f = yield* userFormat
    // What was approved, as the request showed it: amounts with separators and the total debited (issue 31 item 6).
    const totals = Object.entries(approval.currencies)
      .map(([c, t]) => `${c}: ${f.count(t.rows)} rows, ${f.decimal(t.amount)} ${c} + est. fees ${f.decimal(t.fee_estimate)} ${c} = total debited ${f.decimal(t.total)} ${c}`)
      .join("; ")
    yield* Console.error(
      `Approved batch ${approval.batch_id} (${approval.file}: ${totals}) by ${approval.approved_by} at ${f.time(approval.approved_at ?? "")}; moved to ${file}: the watcher pays it on its next pass, only if the file is still exactly this batch.`
    )
  }).pipe(asUsage)

export const reject = ({ batch, by, jobs, reason }: Parsed<typeof rejectCommand>) =>
  Effect.gen(function* () {
    const { approval, file } = yield* rejectBatch(jobFolder(jobs), batch, by, Option.getOrUndefined(reason))
    yield* Console.error(`Rejected batch ${approval.batch_id} (${approval.file}) by ${by.trim()}; moved to ${file}. Nothing was paid.`)
  }).pipe(asUsage)
