/** `--approvers`, `--four-eyes` and `--submitted-by` (ApprovalOptions.ts) read as an approval policy. */
import { Effect, Option } from "effect"
import { type ApprovalError, type ApprovalPolicy, personName } from "../jobs/Approval.ts"
import { UsageError } from "./Errors.ts"
import { refusalText } from "./JobNoteText.ts"

export interface ApproverArgs {
  readonly approvers: Option.Option<string>
  readonly fourEyes: boolean
  readonly submittedBy: Option.Option<string>
}

const asUsage = (e: ApprovalError) => new UsageError({ reason: refusalText(e.refusal) })

/** The options as an approval policy; refused (exit 2) when nobody could approve under it. */
export const approvalPolicyOf = (args: ApproverArgs) =>
  Effect.gen(function* () {
    const approvers = yield* Effect.forEach(
      Option.match(args.approvers, { onNone: () => [], onSome: (list) => list.split(",").filter((n) => n.trim() !== "") }),
      (name) => personName("--approvers", name)
    ).pipe(Effect.mapError(asUsage))
    const submittedBy = Option.isSome(args.submittedBy) ? yield* personName("--submitted-by", args.submittedBy.value).pipe(Effect.mapError(asUsage)) : undefined
    if (args.fourEyes && submittedBy === undefined) {
      return yield* new UsageError({ reason: "--four-eyes needs to know who submits the files: pass --submitted-by NAME (or set PAYOUTS_SUBMITTED_BY)" })
    }
    if (args.fourEyes && approvers.length > 0 && approvers.every((a) => a.toLowerCase() === submittedBy?.toLowerCase())) {
      return yield* new UsageError({ reason: `--four-eyes: the only approver is the submitter ${submittedBy}; nobody could approve` })
    }
    return { approvers, fourEyes: args.fourEyes, submittedBy } satisfies ApprovalPolicy
  })
