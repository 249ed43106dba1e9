/**
 * What `payouts console` was started with that its pages read (DESIGN 13): the job folder whose
 * awaiting-approval/ the Approvals page lists, the approval policy a watcher of that folder holds
 * (`--approvers`, `--four-eyes`, `--submitted-by`, as `payouts watch` takes them), how long a
 * session may sit idle, and whether cookies must be Secure (served over TLS or behind a proxy).
 */
import { Context, type Duration, type Option } from "effect"
import type { ApprovalPolicy } from "../jobs/Approval.ts"
import type { JobFolder } from "../jobs/JobFolder.ts"

export class ConsoleSettings extends Context.Tag("payouts/console/ConsoleSettings")<ConsoleSettings, {
  readonly jobs: Option.Option<JobFolder>
  readonly policy: ApprovalPolicy
  readonly idleTimeout: Duration.Duration
  /** Served over HTTPS (its own TLS, or a proxy that says so): cookies are marked Secure. */
  readonly secure: boolean
}>() {}
