/**
 * Who may approve a batch (`--approvers`, `--four-eyes`, `--submitted-by`): taken by `watch`, which
 * pays, and by `console`, whose Approvals page approves as that watcher will check. The options only:
 * the command tree loads them at start; ApprovalPolicy.ts reads them, loaded with the handlers.
 */
import { Options } from "@effect/cli"
import { Config } from "effect"

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
