/**
 * `payouts resolve BATCH`: what a person does when a run ends with exit 5. Without a decision it
 * shows the evidence of every unknown or alarmed row; with `--line N` and one decision it applies it
 * (src/run/Resolve). Exit 5 while rows or the account still need a person, else 0.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { EXIT_ATTENTION } from "../../run/ExitCode.ts"
import { type Decision, describeResolve, resolve } from "../../run/Resolve.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import { Exiting } from "../Failure.ts"
import { accountOf, batchArg, findBatch, jobsOption, jobsStateOption } from "../Jobs.ts"
import { storeLayer } from "../StoreLocation.ts"
import { jsonOption, printJson } from "../Output.ts"
import { connectionOptions, redirectOptions, resolveRedirects } from "../Settings.ts"

export const resolveCommand = Command.make(
  "resolve",
  {
    batch: batchArg,
    jobs: jobsOption,
    state: jobsStateOption,
    connection: connectionOptions,
    redirects: redirectOptions,
    line: Options.integer("line").pipe(Options.withDescription("The row (its line in the file) to show or decide."), Options.optional),
    by: Options.text("by").pipe(Options.withDescription("Who decides (required; recorded with the decision).")),
    reason: Options.text("reason").pipe(Options.withDescription("Why (recorded with the decision)."), Options.withDefault("")),
    adopt: Options.text("adopt").pipe(Options.withPseudoName("REFERENCE"), Options.withDescription("Adopt this payout as the row's (checked by a status lookup and for uniqueness)."), Options.optional),
    resend: Options.boolean("resend").pipe(Options.withDescription("Send the row's payout again now (refused while a listed payout carries its token).")),
    abandon: Options.boolean("abandon").pipe(Options.withDescription("Declare the row not paid: it is never retried automatically.")),
    acknowledge: Options.boolean("acknowledge").pipe(Options.withDescription("Clear the row's alarm after checking it (e.g. a duplicate settled with the recipient).")),
    listingOk: Options.boolean("listing-ok").pipe(Options.withDescription("Clear the account alarm after a person checked the service's listing.")),
    json: jsonOption
  },
  (args) =>
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
      const outcome = yield* resolve({
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
).pipe(
  Command.withDescription(
    "Settle rows a run could not prove (exit 5): show the evidence; adopt a payout, resend, abandon, or clear an alarm, recording who and why."
  )
)
