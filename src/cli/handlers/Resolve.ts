/**
 * `payouts resolve BATCH`: what a person does when a run ends with exit 5. Without a decision it
 * shows the evidence of every unknown or alarmed row; with `--line N` and one decision it applies it
 * (src/run/Resolve). Exit 5 while rows or the account still need a person, else 0.
 */
import { Console, Effect, Option } from "effect"
import { EXIT_ATTENTION } from "../../run/ExitCode.ts"
import { type Decision, describeResolve, resolve as resolveRows } from "../../run/Resolve.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import type { resolveCommand } from "../commands/Resolve.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import { Exiting } from "../Failure.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeLayer } from "../StoreLocation.ts"
import { printJson } from "../Output.ts"
import { resolveRedirects } from "../Settings.ts"

export const resolve = (args: Parsed<typeof resolveCommand>) =>
  Effect.gen(function* () {
    const chosen: Array<Decision> = [
      ...(Option.isSome(args.adopt) ? [{ _tag: "Adopt", reference: args.adopt.value.trim() } as const] : []),
      ...(args.resend ? [{ _tag: "Resend" } as const] : []),
      ...(args.abandon ? [{ _tag: "Abandon" } as const] : []),
      ...(args.acknowledge ? [{ _tag: "Acknowledge" } as const] : [])
    ]
    if (chosen.length > 1) return yield* new UsageError({ reason: "choose one of --adopt, --resend, --abandon, --acknowledge" })
    const decision: Decision = chosen[0] ?? { _tag: "Show" }
    if (args.by.trim() === "") return yield* new UsageError({ reason: "--by must name who decides" })
    if ((decision._tag !== "Show" || args.listingOk) && args.reason.trim() === "") {
      return yield* new UsageError({ reason: "--reason is required with a decision: it is recorded for whoever looks next" })
    }
    const account = yield* accountOf(args.connection)
    const found = yield* findBatch(account, args.batch)
    const redirects = yield* resolveRedirects(args.redirects)
    const outcome = yield* resolveRows({
      accountId: account,
      batchId: found.batchId,
      line: Option.getOrUndefined(args.line),
      by: args.by.trim(),
      reason: args.reason.trim(),
      decision,
      listingOk: args.listingOk,
      urls: {
        callbackUrl: Option.getOrUndefined(redirects.callbackUrl),
        returnUrl: Option.getOrElse(redirects.returnUrl, () => DEFAULT_RUN_SETTINGS.returnUrl),
        cancelUrl: Option.getOrElse(redirects.cancelUrl, () => DEFAULT_RUN_SETTINGS.cancelUrl)
      }
    }).pipe(Effect.catchTag("ResolveError", (e) => new UsageError({ reason: e.message })))
    yield* args.json ? printJson(outcome) : Console.log(describeResolve(found.batchId, outcome))
    const open = outcome.rows.some((r) => r.state === "unknown" || r.alarm !== null) || outcome.accountAlarm !== undefined
    if (open) return yield* new Exiting({ code: EXIT_ATTENTION })
    if (!args.json) yield* Console.error(`Run the batch's file again (payouts run FILE) to finish it and rewrite its ledger.`)
  }).pipe(withClient(args.connection), Effect.provide(storeLayer(args.state, args.jobs)))
