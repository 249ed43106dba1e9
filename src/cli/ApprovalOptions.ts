/**
 * Who may approve a batch (`--approvers`, `--four-eyes`, `--submitted-by`): taken by `watch`, which
 * pays, and by `console`, whose Approvals page approves as that watcher will check (jobs/Approval.ts).
 */
import { Options } from "@effect/cli"
import { Config, Effect, Option } from "effect"
import { type ApprovalError, type ApprovalPolicy, personName } from "../jobs/Approval.ts"
import { UsageError } from "./Errors.ts"

export const approverOptions = {
  approvers: Options.text("approvers").pipe(
    Options.withPseudoName("NAME,NAME"),
    Options.withDescription("Only these people may approve (checked by approve and again before paying). Environment: PAYOUTS_APPROVERS."),
    Options.withFallbackConfig(Config.string("PAYOUTS_APPROVERS")),
    Options.optional
  ),
  fourEyes: Options.boolean("four-eyes").pipe(Options.withDescription("A batch must be approved by someone other than its submitter (--submitted-by).")),
  submittedBy: Options.text("submitted-by").pipe(
    Options.withPseudoName("NAME"),
    Options.withDescription("Who submits the files dropped in this folder (recorded in each approval request). Environment: PAYOUTS_SUBMITTED_BY."),
    Options.withFallbackConfig(Config.string("PAYOUTS_SUBMITTED_BY")),
    Options.optional
  )
}

export interface ApproverArgs {
  readonly approvers: Option.Option<string>
  readonly fourEyes: boolean
  readonly submittedBy: Option.Option<string>
}

const asUsage = (e: ApprovalError) => new UsageError({ reason: e.message })

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
