/**
 * The approval record beside a batch file (`<name>.approval.json`, jobs/Approval.ts): what a batch
 * waiting for `payouts approve` showed, who submitted it and who approved it. Here as a file format,
 * read by the report as well as by the job folder.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { outputOf, writeTextAtomic } from "./AtomicFile.ts"
import { SharedPhonesHistory } from "./SummaryFile.ts"

/** What an approval bound: the batch id and its control totals. Also the store's `approvedWhat`. */
export const ApprovedWhat = Schema.Struct({
  batch_id: Schema.String,
  rows: Schema.Number,
  currencies: Schema.Record({ key: Schema.String, value: Schema.Struct({ rows: Schema.Number, amount: Schema.String }) })
})
export type ApprovedWhat = typeof ApprovedWhat.Type

export const ApprovalFile = Schema.Struct({
  batch_id: Schema.String,
  file: Schema.String,
  /** `superseded`: the file was edited after it was put up for approval; it goes back as a new batch. */
  status: Schema.Literal("awaiting", "approved", "rejected", "superseded"),
  submitted_at: Schema.String,
  /** Who submitted the batch (`watch --submitted-by`): under four eyes, never its approver. */
  submitted_by: Schema.optional(Schema.String),
  /** The watcher's `--approvers`, when it restricts who may approve. */
  approvers: Schema.optional(Schema.Array(Schema.String)),
  four_eyes: Schema.optional(Schema.Boolean),
  rows: Schema.Number,
  currencies: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ rows: Schema.Number, amount: Schema.String, fee_estimate: Schema.String, total: Schema.String })
  }),
  preflight: Schema.optional(Schema.String),
  approved_by: Schema.optional(Schema.String),
  approved_at: Schema.optional(Schema.String),
  approved_what: Schema.optional(ApprovedWhat),
  /** The batch this one replaces: the same file, edited after it was put up for (or given) approval. */
  supersedes: Schema.optional(Schema.String),
  /** Phones of this batch another batch paid to other names (a spreadsheet may have lost digits): check before approving. */
  shared_phones_history: Schema.optional(SharedPhonesHistory),
  /** Anything a person must read first (an edit found, an approval refused). */
  note: Schema.optional(Schema.String),
  rejected_by: Schema.optional(Schema.String),
  rejected_at: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
})
export type ApprovalFile = typeof ApprovalFile.Type

const decode = Schema.decodeUnknown(Schema.parseJson(ApprovalFile))
const encode = Schema.encodeSync(ApprovalFile)

export const writeApproval = (path: string, approval: ApprovalFile) =>
  writeTextAtomic(path, `${JSON.stringify(encode(approval), null, 2)}\n`)

export const readApproval = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* decode(yield* fs.readFileString(path))
  })

/** The approval record beside a batch file, if it has one that decodes. */
export const approvalOf = (csvPath: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = outputOf(csvPath, ".approval.json")
    if (!(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return Option.none<ApprovalFile>()
    return yield* readApproval(path).pipe(Effect.option)
  })
