/**
 * `payouts halt`: an account-wide stop kept in the state store. While it holds, no runner or worker of
 * the account sends a new payout (each checks it before every POST); tracking and reconciliation go
 * on, and rows not sent stay waiting for the first run after `payouts halt --lift`.
 */
import { Console, Effect, Layer, Option } from "effect"
import { haltAccount, liftHalt } from "../../run/AccountHalt.ts"
import { describeHalt } from "../../run/Safeguards.ts"
import type { Halt } from "../../store/AccountModel.ts"
import { AccountRecords } from "../../store/Sql/Account.ts"
import type { haltCommand } from "../commands/Halt.ts"
import { openStore } from "../StoreOpen.ts"
import { UsageError } from "../Errors.ts"
import { accountOf } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"

const haltView = (halt: Option.Option<Halt>) =>
  Option.match(halt, {
    onNone: () => ({ halted: false }),
    onSome: (h) => ({ halted: true, by: h.by, at: new Date(h.at).toISOString(), reason: h.reason })
  })

const show = (halt: Option.Option<Halt>) =>
  Option.match(halt, {
    onNone: () => "No halt in force: payouts may be sent.",
    onSome: (h) => `HALTED: ${describeHalt(h)}. No new payout leaves any runner of this account. Lift with: payouts halt --lift --by NAME`
  })

type Action =
  | { readonly _tag: "Show" }
  | { readonly _tag: "Halt"; readonly by: string; readonly reason: string }
  | { readonly _tag: "Lift"; readonly by: string; readonly reason: string | undefined }

const actionOf = (by: Option.Option<string>, reason: Option.Option<string>, lift: boolean): Effect.Effect<Action, UsageError> => {
  const who = Option.filter(Option.map(by, (b) => b.trim()), (b) => b !== "")
  const why = Option.filter(Option.map(reason, (r) => r.trim()), (r) => r !== "")
  if (lift) {
    if (Option.isNone(who)) return Effect.fail(new UsageError({ reason: "--lift needs --by NAME: who lifts the halt is recorded" }))
    return Effect.succeed({ _tag: "Lift", by: who.value, reason: Option.getOrUndefined(why) })
  }
  if (Option.isNone(by) && Option.isNone(reason)) return Effect.succeed({ _tag: "Show" })
  if (Option.isNone(who)) return Effect.fail(new UsageError({ reason: "--by must name who halts the account (recorded)" }))
  if (Option.isNone(why)) return Effect.fail(new UsageError({ reason: "--reason is required to halt: it is shown to every runner and to whoever lifts it" }))
  return Effect.succeed({ _tag: "Halt", by: who.value, reason: why.value })
}

export const halt = (args: Parsed<typeof haltCommand>) =>
  Effect.gen(function* () {
    const action = yield* actionOf(args.by, args.reason, args.lift)
    const records = yield* AccountRecords
    const account = yield* accountOf(args.connection)
    if (action._tag === "Halt") {
      const done = yield* haltAccount(account, action.by, action.reason)
      if (!done.changed) yield* Console.error("A halt was already in force; it is kept as it was.")
    } else if (action._tag === "Lift") {
      const done = yield* liftHalt(account, action.by, action.reason)
      yield* Console.error(
        done.changed ? `Halt lifted by ${action.by}. Runs send payouts again; run a halted batch's file again to pay its waiting rows.` : "No halt was in force."
      )
    }
    const halt = yield* records.activeHalt(account)
    yield* args.json ? printJson(haltView(halt)) : Console.log(show(halt))
  }).pipe(
    Effect.provide(
      Layer.unwrapEffect(
        Effect.map(
          Effect.tap(storeFor(args.state, args.jobs), announceStore),
          openStore
        )
      )
    )
  )
