/**
 * `payouts resolve BATCH`: what a person does when a run ends with exit 5. Without a decision it
 * looks: the rows that need a person (no name needed). A decision names its rows (`--line N`,
 * `--lines 3,7-9`, `--all-unknown`) and who decides and why (`--by`, `--reason`); over several rows it
 * is asked once (`--yes` skips the question; with no terminal and no `--yes` it is refused). Exit 5
 * while any row of the batch (or the account) still needs a person, else 0 (src/run/Resolve).
 */
import { Console, Effect, Either, Option } from "effect"
import { userFormat } from "../../output/Format.ts"
import { EXIT_ATTENTION, EXIT_OK, EXIT_REFUSED } from "../../run/ExitCode.ts"
import { resolve as resolveRows, type Selection } from "../../run/Resolve.ts"
import type { Decision } from "../../run/ResolveDecision.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import type { resolveCommand } from "../commands/Resolve.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import { Exiting } from "../Failure.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { parseLineRanges } from "../LineRanges.ts"
import { printJson } from "../Output.ts"
import { askToDecide, canAsk } from "../ResolveQuestion.ts"
import { closingLine, describeResolve, questionText, resolveJson } from "../ResolveView.ts"
import { storeLayer } from "../StoreLocation.ts"
import { resolveRefusalText } from "../ResolveText.ts"
import { resolveRedirects } from "../Settings.ts"

type Args = Parsed<typeof resolveCommand>

const VERBS: Record<Exclude<Decision["_tag"], "Show">, string> = { Adopt: "Adopt for", Resend: "Resend", Abandon: "Abandon", Acknowledge: "Acknowledge the alarms of" }

const decisionOf = (args: Args): Effect.Effect<Decision, UsageError> => {
  const chosen: Array<Decision> = [
    ...(Option.isSome(args.adopt) ? [{ _tag: "Adopt", reference: args.adopt.value.trim() } as const] : []),
    ...(args.resend ? [{ _tag: "Resend" } as const] : []),
    ...(args.abandon ? [{ _tag: "Abandon" } as const] : []),
    ...(args.acknowledge ? [{ _tag: "Acknowledge" } as const] : [])
  ]
  if (chosen.length > 1) return new UsageError({ reason: "choose one decision: --adopt, --resend, --abandon or --acknowledge" })
  return Effect.succeed(chosen[0] ?? { _tag: "Show" })
}

const selectionOf = (args: Args): Effect.Effect<Selection, UsageError> => {
  const given = [Option.isSome(args.line), Option.isSome(args.lines), args.allUnknown].filter(Boolean).length
  if (given > 1) return new UsageError({ reason: "name the rows one way: --line N, --lines 3,7-9 or --all-unknown" })
  if (Option.isSome(args.line)) return Effect.succeed({ _tag: "Line", line: args.line.value })
  if (args.allUnknown) return Effect.succeed({ _tag: "AllUnknown" })
  if (Option.isNone(args.lines)) return Effect.succeed({ _tag: "NeedingPerson" })
  const parsed = parseLineRanges(args.lines.value)
  return Either.isLeft(parsed) ? new UsageError({ reason: parsed.left }) : Effect.succeed({ _tag: "Lines", lines: parsed.right })
}

const textOf = (value: Option.Option<string>) => Option.getOrElse(value, () => "").trim()

export const resolve = (args: Args) =>
  Effect.gen(function* () {
    const decision = yield* decisionOf(args)
    const selection = yield* selectionOf(args)
    const by = textOf(args.by)
    const reason = textOf(args.reason)
    const deciding = decision._tag !== "Show" || args.listingOk
    if (deciding && by === "") return yield* new UsageError({ reason: "a decision needs --by NAME: who decides is recorded with it" })
    if (deciding && reason === "") return yield* new UsageError({ reason: "a decision needs --reason TEXT: why is recorded for whoever looks next" })
    if (decision._tag !== "Show" && selection._tag === "NeedingPerson") {
      return yield* new UsageError({ reason: "name the rows to decide: --line N, --lines 3,7-9 or --all-unknown" })
    }
    // A set of rows is asked once; refused at once when nobody can be asked (before the service is).
    const asks = decision._tag !== "Show" && (selection._tag === "Lines" || selection._tag === "AllUnknown") && !args.yes
    if (asks && !canAsk()) {
      return yield* new UsageError({ reason: "a decision over several rows is asked on a terminal, and there is none here; pass --yes to decide without asking" })
    }
    const f = yield* userFormat
    const verb = decision._tag === "Show" ? "" : VERBS[decision._tag]
    const account = yield* accountOf(args.connection)
    const found = yield* findBatch(account, args.batch)
    const redirects = yield* resolveRedirects(args.redirects)
    const outcome = yield* resolveRows({
      accountId: account,
      batchId: found.batchId,
      selection,
      by: by === "" ? undefined : by,
      reason,
      decision,
      listingOk: args.listingOk,
      urls: {
        callbackUrl: Option.getOrUndefined(redirects.callbackUrl),
        returnUrl: Option.getOrElse(redirects.returnUrl, () => DEFAULT_RUN_SETTINGS.returnUrl),
        cancelUrl: Option.getOrElse(redirects.cancelUrl, () => DEFAULT_RUN_SETTINGS.cancelUrl)
      },
      confirm: asks ? (rows) => askToDecide(questionText(f, verb, found.batchId, by, reason, rows)) : undefined
    }).pipe(Effect.catchTag("ResolveError", (e) => new UsageError({ reason: resolveRefusalText(e.refusal) })))
    const declined = outcome.decision?.declined === true
    const code = declined ? EXIT_REFUSED : outcome.stillOpen.length > 0 || outcome.accountAlarm !== undefined ? EXIT_ATTENTION : EXIT_OK
    const namedRows = selection._tag !== "NeedingPerson"
    yield* args.json ? printJson(resolveJson(outcome, code)) : Console.log(describeResolve(f, outcome, namedRows))
    if (!declined) yield* Console.error(closingLine(f, outcome))
    if (code !== EXIT_OK) return yield* new Exiting({ code })
  }).pipe(withClient(args.connection), Effect.provide(storeLayer(args.state, args.jobs)))
