/**
 * A claimed row stopped right before its POST: the last look before the request leaves (lease, halt,
 * safeguards, guards, probe window) and what becomes of a row it stops. Apart: Submitter.ts sends.
 */
import { Effect, Either, Option, Ref } from "effect"
import type { Row } from "../store/Model.ts"
import { Claims } from "../store/Sql/Claims.ts"
import type { Breach, GuardBook } from "../intake/Guards.ts"
import { leaseValid, RunContext } from "./RunContext.ts"
import { describeHalt, Safeguards } from "./Safeguards.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import type { makeUnsentRows } from "./UnsentRows.ts"

/** Why a claimed row was stopped right before its POST, so it is put back (or skipped) for that reason. */
export type Blocked =
  | { readonly _tag: "Halt"; readonly why: string }
  | { readonly _tag: "Guard"; readonly breach: Breach }
  | { readonly _tag: "Unchecked"; readonly why: string }
const halt = (why: string): Blocked => ({ _tag: "Halt", why })

export interface NotSentInput {
  readonly unsent: Effect.Effect.Success<typeof makeUnsentRows>
  readonly book: GuardBook
  /** Set when a row waits for its operator's probe window (the run turns again). */
  readonly probeHeld: Ref.Ref<boolean>
  /** Set when a row waits for a lease that may have lapsed (the run turns again). */
  readonly leaseHeld: Ref.Ref<boolean>
}

/** The submitter's last look before each POST, and the rows it stops: put back, or skipped by a guard. */
export const makeNotSent = ({ book, leaseHeld, probeHeld, unsent }: NotSentInput) =>
  Effect.gen(function* () {
    const ctx = yield* RunContext
    const safeguards = yield* Safeguards
    const claims = yield* Claims
    const writer = yield* TransitionWriter
    const { accountId, batchId } = ctx

    /**
     * Asked by the client after the rate gate, right before the request leaves: the lease, the
     * account's halt (cached about a second) and, for a first send, the guards. `resend`: a row the
     * reconciler proved unpaid, already counted by the guards when it was first sent. Undefined: it goes.
     */
    const whyNotSend = (row: Row, resend: boolean): Effect.Effect<Blocked | undefined> =>
      Effect.gen(function* () {
        // Asked again: the try before did not send (a new rate slot, a 429, a request never made).
        yield* unsent.retry(row.idx)
        if (yield* unsent.closed) return halt("the run was interrupted")
        if (!(yield* leaseValid(ctx))) return yield* Effect.as(Ref.set(leaseHeld, true), halt("the lease may have lapsed"))
        const halted = yield* safeguards.halt
        if (Option.isSome(halted)) return halt(describeHalt(halted.value))
        // The breaker or a pause may have tripped while this row waited for its rate slot.
        if (yield* safeguards.holds(row.operator)) return halt("held by a safeguard")
        if (resend) return yield* begins(row)
        const breach = yield* book.admit(row).pipe(Effect.either)
        if (Either.isLeft(breach)) return { _tag: "Unchecked", why: `guards not checked: ${breach.left.message}` }
        if (breach.right !== undefined) return { _tag: "Guard", breach: breach.right }
        return yield* begins(row)
      })

    /** The moment the POST begins: from here on the row may reach the service and is never released. */
    const begins = (row: Row): Effect.Effect<Blocked | undefined> =>
      Effect.gen(function* () {
        // The operator's probe window (not proven yet, its first payouts unsettled): the row waits, released.
        if (!(yield* safeguards.admit(row.idx, row.operator))) {
          yield* Ref.set(probeHeld, true)
          return halt("its operator's first payouts have no final status yet")
        }
        if (yield* unsent.begin(row.idx)) {
          yield* safeguards.sending(row.idx, row.operator)
          yield* Ref.set(ctx.sentAny, true)
          return undefined
        }
        yield* safeguards.unadmit(row.idx)
        return halt("the run was stopped")
      })

    /** Puts back one row never sent, unless a stop already took it (and releases it with the others). */
    const putBack = (row: Row, why: string) =>
      Effect.flatMap(unsent.take(row.idx), (mine) =>
        mine ? claims.releaseRows(accountId, batchId, [row.idx], why, ctx.owner).pipe(Effect.orDie, Effect.asVoid) : Effect.void
      )

    /** A row stopped before its POST: a halt or an unreadable store puts it back; a guard skips it. */
    const notSent = (row: Row, blocked: Blocked) =>
      Effect.gen(function* () {
        if (blocked._tag !== "Guard") return yield* putBack(row, `not sent: ${blocked.why}`)
        if (yield* unsent.take(row.idx)) {
          yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: blocked.breach.reason, source: "preflight" })
        }
      }).pipe(Effect.ensuring(book.drop(row.idx)))

    return { whyNotSend, putBack, notSent } as const
  })
