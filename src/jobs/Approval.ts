/**
 * `--require-approval`: a validated, preflighted batch waits in `awaiting-approval/` with
 * `<name>.approval.json` (rows, totals and fee estimates per currency) until `payouts approve`
 * moves it to `processing/` or `payouts reject` moves it to `rejected/`.
 *
 * An approval binds what was shown: the batch id (the hash of the file's bytes) and its control
 * totals (rows and amount per currency). `approve` checks the file against them before approving, and
 * the watcher again before paying; a file edited in between is a new batch that needs its own approval.
 */
import { Clock, Data, DateTime, Effect, Option } from "effect"
import { join } from "node:path"
import { hasControl } from "../domain/Text.ts"
import { fileBatchId } from "../intake/FileBatchId.ts"
import { type ApprovalFile, type ApprovedWhat, approvalOf, writeApproval } from "../output/ApprovalFile.ts"
import { outputOf } from "../output/AtomicFile.ts"
import { batchFilesIn, type JobFolder, moveBatch } from "./JobFolder.ts"
import { JobNote, JobNotes, PolicyRefusal, Refusal } from "./JobNotes.ts"
import { controlDifference, scanFile } from "./Scan.ts"

/** An approval or a decision refused: why, as a typed fact the command line words (JobNotes). */
export class ApprovalError extends Data.TaggedError("ApprovalError")<{ readonly refusal: Refusal }> {}

const refused = (refusal: Refusal) => new ApprovalError({ refusal })

/** Every batch waiting in awaiting-approval/ with the request beside it, in name order. */
export const awaitingBatches = (folder: JobFolder) =>
  Effect.gen(function* () {
    const found: Array<{ csv: string; approval: ApprovalFile }> = []
    for (const name of yield* batchFilesIn(folder.awaiting)) {
      const csv = join(folder.awaiting, name)
      const approval = yield* approvalOf(csv)
      if (Option.isSome(approval)) found.push({ csv, approval: approval.value })
    }
    return found
  })

/** The one batch waiting for approval whose id starts with `id`. */
export const findAwaiting = (folder: JobFolder, id: string) =>
  Effect.gen(function* () {
    const found = (yield* awaitingBatches(folder)).filter((b) => b.approval.batch_id.startsWith(id.trim().toLowerCase()))
    if (id.trim().length < 4) return yield* refused(Refusal.IdTooShort({ id }))
    if (found.length === 0) return yield* refused(Refusal.NotWaiting({ id, folder: folder.awaiting }))
    if (found.length > 1) return yield* refused(Refusal.Ambiguous({ id, matches: found.length }))
    return found[0]
  })

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => DateTime.formatIso(DateTime.unsafeMake(ms)))

/** Who may approve, as the watcher was told (`--approvers`, `--four-eyes`, `--submitted-by`). */
export interface ApprovalPolicy {
  /** Empty: anyone named may approve. */
  readonly approvers: ReadonlyArray<string>
  readonly fourEyes: boolean
  readonly submittedBy: string | undefined
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()

/** A person's name as given to `--by`, `--approvers` or `--submitted-by`: printable, short, not blank. */
export const personName = (flag: string, text: string) => {
  const name = text.trim()
  // A name is written into the approval file, the store and logs: no control characters in it.
  return name === "" || name.length > 100 || hasControl(name) || name.includes(",")
    ? Effect.fail(refused(Refusal.NotAName({ flag, text: text.slice(0, 100) })))
    : Effect.succeed(name)
}

/** Why `by` may not approve under `policy`; undefined when they may. */
export const approverRefusal = (policy: ApprovalPolicy, by: string): PolicyRefusal | undefined => {
  if (policy.approvers.length > 0 && !policy.approvers.some((a) => sameName(a, by))) {
    return PolicyRefusal.NotAnApprover({ by, approvers: policy.approvers })
  }
  if (policy.fourEyes) {
    if (policy.submittedBy === undefined) return PolicyRefusal.NoSubmitter()
    if (sameName(policy.submittedBy, by)) return PolicyRefusal.OwnBatch({ by })
  }
  return undefined
}

/** The policy recorded in an approval request by the watcher that wrote it. */
export const policyOf = (approval: ApprovalFile): ApprovalPolicy => ({
  approvers: approval.approvers ?? [],
  fourEyes: approval.four_eyes ?? false,
  submittedBy: approval.submitted_by
})

/** The policy a watcher run with `policy` holds an approval of this request to: the request's submitter first. */
export const watcherPolicy = (policy: ApprovalPolicy, approval: ApprovalFile): ApprovalPolicy => ({
  ...policy,
  submittedBy: approval.submitted_by ?? policy.submittedBy
})

/** Why `by` may not approve this request: under the policy it records, and under `also` as a watcher holds it. */
export const refusalFor = (approval: ApprovalFile, by: string, also: ApprovalPolicy | undefined): PolicyRefusal | undefined =>
  approverRefusal(policyOf(approval), by) ?? (also === undefined ? undefined : approverRefusal(watcherPolicy(also, approval), by))

/** What a decision may carry besides who: the policy of the watcher that will pay (the console's), and why. */
export interface DecisionOptions {
  readonly policy?: ApprovalPolicy
  readonly reason?: string
}

/** The control totals an approval request showed (the request lists every row of a whole file). */
export const shownWhat = (approval: ApprovalFile): ApprovedWhat => ({
  batch_id: approval.batch_id,
  rows: approval.rows,
  currencies: Object.fromEntries(Object.entries(approval.currencies).map(([c, v]) => [c, { rows: v.rows, amount: v.amount }]))
})

/** What the file holds now: its batch id and control totals. */
export const currentWhat = (csv: string) =>
  Effect.gen(function* () {
    const batchId = yield* fileBatchId(csv)
    const plan = yield* scanFile(csv, 0)
    return { batch_id: batchId, ...plan.control } satisfies ApprovedWhat
  })

/** Where `now` is not what was bound; undefined when it is the same batch with the same totals. */
export const whatDiffers = (bound: ApprovedWhat, now: ApprovedWhat): string | undefined => {
  if (bound.batch_id !== now.batch_id) {
    const totals = controlDifference(bound, now)
    return `its content is now batch ${now.batch_id}, not ${bound.batch_id}${totals === undefined ? "" : ` (${totals})`}`
  }
  const totals = controlDifference(bound, now)
  return totals === undefined ? undefined : `its control totals differ: ${totals}`
}

/**
 * Records the approval and hands the batch to the watcher (processing/). Refused for a name the
 * policy does not allow, and for a file edited since it was put up for approval: that one goes back to
 * the watcher (processing/) to be put up for approval as the new batch it is, and nothing is approved.
 */
export const approve = (folder: JobFolder, id: string, byText: string, options: DecisionOptions = {}) =>
  Effect.gen(function* () {
    const by = yield* personName("--by", byText)
    const { approval, csv } = yield* findAwaiting(folder, id)
    const refusal = refusalFor(approval, by, options.policy)
    if (refusal !== undefined) return yield* refused(Refusal.Policy({ why: refusal }))
    const now = yield* currentWhat(csv)
    const differs = whatDiffers(shownWhat(approval), now)
    if (differs !== undefined) {
      const at = yield* nowIso
      const note = JobNote.EditedBeforeApproval({ file: approval.file, requestedBatch: approval.batch_id, differs, by, at })
      yield* writeApproval(outputOf(csv, ".approval.json"), { ...approval, status: "superseded", note: (yield* JobNotes).text(note) })
      yield* moveBatch(csv, folder.awaiting, folder.processing)
      return yield* refused(Refusal.Edited({ note }))
    }
    const approved: ApprovalFile = {
      ...approval,
      status: "approved",
      approved_by: by,
      approved_at: yield* nowIso,
      approved_what: now,
      ...(options.reason === undefined ? {} : { reason: options.reason })
    }
    yield* writeApproval(outputOf(csv, ".approval.json"), approved)
    const moved = yield* moveBatch(csv, folder.awaiting, folder.processing)
    return { approval: approved, file: moved }
  })

/** Drops a waiting batch: it moves to rejected/ and is never paid. */
export const reject = (folder: JobFolder, id: string, byText: string, reason: string | undefined) =>
  Effect.gen(function* () {
    const by = yield* personName("--by", byText)
    const { approval, csv } = yield* findAwaiting(folder, id)
    yield* writeApproval(outputOf(csv, ".approval.json"), {
      ...approval,
      status: "rejected",
      rejected_by: by,
      rejected_at: yield* nowIso,
      ...(reason === undefined ? {} : { reason })
    })
    const moved = yield* moveBatch(csv, folder.awaiting, folder.rejected)
    return { approval, file: moved }
  })
