/**
 * Submission: claim rows (the durable intent, in groups), POST each payout once, record what came
 * back. The POST is never retried blindly: only failures known to happen before the request reached
 * the service (not sent, 429) are sent again; anything else after sending goes to reconciliation.
 */
import { Effect, Either, Fiber, Option, Ref, Schedule, Stream } from "effect"
import { FENCED, PaymentClient } from "../api/Client.ts"
import type { ClientError } from "../api/Errors.ts"
import { Customer, PayoutRequest, type PayoutResponse } from "../api/Schemas.ts"
import { fromWire, toWire } from "../domain/Money.ts"
import { withToken } from "../domain/Token.ts"
import type { Row } from "../store/Model.ts"
import { IN_FLIGHT_STATES, type RowState, stateOfStatus } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { type Breach, makeGuardBook } from "../intake/Guards.ts"
import { estimateFee } from "./Preflight.ts"
import { leaseValid, type RunContext } from "./RunContext.ts"
import { describeHalt } from "./Safeguards.ts"
import { follow } from "./Tracker.ts"

/** The API requires a callback_url; without a receiver nobody listens there and polling does the work. */
export const DEFAULT_CALLBACK_URL = "http://localhost/payouts/webhooks"

export const payoutRequest = (row: Row, settings: Pick<RunContext["settings"], "returnUrl" | "cancelUrl" | "callbackUrl">): PayoutRequest =>
  new PayoutRequest({
    amount: toWire(row.amountMinor ?? 0, row.currency),
    currency: row.currency,
    operator: row.operator,
    phoneNumber: row.phone,
    return_url: settings.returnUrl,
    cancel_url: settings.cancelUrl,
    callback_url: settings.callbackUrl ?? DEFAULT_CALLBACK_URL,
    description: withToken(row.token, row.description),
    customer: new Customer({ name: row.name, phone: row.phone, email: row.email }),
    payout_details: { ...row.details, token: row.token, ...(row.rowId === null ? {} : { id: row.rowId }) }
  })

/** The runner lost its lease before the request left: it must not be sent by anyone but the new owner. */
const fenced = (e: ClientError) => e._tag === "NotSent" && e.reason === FENCED

/** Safe to send again: the request never reached the service, or it was refused by rate (429). */
const resendable = (e: ClientError) => e._tag === "NotSent" || e._tag === "RateLimited"

const sendSchedule = Schedule.exponential("200 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(6)),
  Schedule.upTo("2 minutes")
)

const fieldMessages = (errors: Readonly<Record<string, ReadonlyArray<string>>>) =>
  Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join("; ")}`)
    .join(" | ")

export const makeSubmitter = (ctx: RunContext) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const client = yield* PaymentClient
    const balanceLock = yield* Effect.makeSemaphore(1)
    const book = yield* makeGuardBook(ctx.accountId, ctx.batchId, ctx.safeguards.settings.guards)
    const { accountId, batchId, writer } = ctx

    const track = (row: Row, reference: string, state: RowState) =>
      IN_FLIGHT_STATES.includes(state) ? follow(ctx, row.idx, reference, true) : Effect.void

    const accepted = Effect.fn("Submitter.accepted")(function* (row: Row, response: PayoutResponse) {
        const state = stateOfStatus(response.status)
        yield* writer.record({
          idx: row.idx,
          from: ["submitting"],
          to: state,
          reference: response.reference,
          ...(response.fee === undefined ? {} : { feeMinor: fromWire(response.fee, row.currency) }),
          source: "response"
        })
        yield* track(row, response.reference, state)
      })

    /** Marks every row of the currency not yet sent as skipped. */
    const skipCurrency = Effect.fn("Submitter.skipCurrency")(function* (currency: string, reason: string) {
        yield* Ref.update(ctx.stoppedCurrencies, (s) => new Set([...s, currency]))
        yield* store.batch(accountId, batchId).streamRowsInStates(["validated"]).pipe(
          Stream.filter((r) => r.currency === currency),
          Stream.runForEach((r) =>
            writer.record({ idx: r.idx, from: ["validated", "submitting"], to: "skipped", error: reason, source: "response" })
          ),
          Effect.orDie
        )
      })

    /** errors.amount mid-run: skip the currency only if its wallet cannot cover the rows left. */
    const refusedForAmount = (row: Row, message: string) =>
      balanceLock.withPermits(1)(
        Effect.gen(function* () {
          const stopped = yield* Ref.get(ctx.stoppedCurrencies)
          if (stopped.has(row.currency)) {
            return yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: "insufficient balance", source: "response" })
          }
          const wallets = yield* client.wallets().pipe(Effect.option)
          const available = Option.match(wallets, {
            onNone: () => 0,
            onSome: (ws) => ws.filter((w) => w.currency === row.currency).reduce((a, w) => a + fromWire(w.available_balance, w.currency), 0)
          })
          const left = yield* store.batch(accountId, batchId).streamRowsInStates(["validated"]).pipe(
            Stream.filter((r) => r.currency === row.currency),
            Stream.runFold(0, (sum, r) => sum + (r.amountMinor ?? 0) + estimateFee(r.amountMinor ?? 0, ctx.settings.feePercent)),
            Effect.orDie
          )
          const need = left + (row.amountMinor ?? 0) + estimateFee(row.amountMinor ?? 0, ctx.settings.feePercent)
          if (available < need) {
            yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: `insufficient balance: ${message}`, source: "response" })
            yield* skipCurrency(row.currency, "insufficient balance")
          } else {
            yield* writer.record({ idx: row.idx, from: ["submitting"], to: "failed", error: `refused: ${message}`, source: "response" })
          }
        })
      )

    const refused = (row: Row, error: ClientError): Effect.Effect<void, never, never> => {
      switch (error._tag) {
        case "ValidationError":
          return writer.record({ idx: row.idx, from: ["submitting"], to: "failed", error: `refused: ${fieldMessages(error.errors) || error.message}`, source: "response" })
        case "InsufficientBalance":
          return refusedForAmount(row, fieldMessages(error.errors) || error.message)
        case "AuthError":
          return Effect.zipRight(
            Ref.set(ctx.stop, { _tag: "Auth", message: error.message }),
            store.batch(accountId, batchId).releaseRows([row.idx], "credentials refused").pipe(Effect.orDie, Effect.asVoid)
          )
        case "NotSent":
          if (fenced(error)) {
            // Never sent: back to validated. Renewal decides whether this runner goes on (renewed)
            // or stops (the lease was taken: LeaseLost).
            return store.batch(accountId, batchId).releaseRows([row.idx], "not sent: the lease may have lapsed", ctx.owner).pipe(Effect.orDie, Effect.asVoid)
          }
          return Effect.zipRight(
            Ref.set(ctx.stop, { _tag: "Unreachable", message: error.message }),
            store.batch(accountId, batchId).releaseRows([row.idx], error.message).pipe(Effect.orDie, Effect.asVoid)
          )
        case "RateLimited":
          return Effect.zipRight(
            Ref.set(ctx.stop, { _tag: "Unreachable", message: error.message }),
            store.batch(accountId, batchId).releaseRows([row.idx], error.message).pipe(Effect.orDie, Effect.asVoid)
          )
        default:
          // Sent, and no usable answer: the payout may exist. Reconciliation decides, never a resend here.
          return writer.record({ idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "response" })
      }
    }

    // Claimed rows whose POST has not started: a runner that stops releases them (DESIGN 7, rule 5),
    // so only rows that may really have reached the service are left for reconciliation.
    const unsent = new Set<number>()

    /** Why a claimed row was stopped right before its POST, so it is put back (or skipped) for that reason. */
    type Blocked = { readonly _tag: "Halt"; readonly why: string } | { readonly _tag: "Guard"; readonly breach: Breach } | { readonly _tag: "Unchecked"; readonly why: string }

    /**
     * Asked by the client after the rate gate, right before the request leaves: the lease, the
     * account's halt (cached about a second) and, for a first send, the guards. `resend`: a row the
     * reconciler proved unpaid, already counted by the guards when it was first sent.
     */
    const mayStillSend = (row: Row, resend: boolean, blocked: { current?: Blocked }) =>
      Effect.gen(function* () {
        if (!(yield* leaseValid(ctx))) return false
        const halt = yield* ctx.safeguards.halt
        if (Option.isSome(halt)) {
          blocked.current = { _tag: "Halt", why: describeHalt(halt.value) }
          return false
        }
        if (resend) return true
        const breach = yield* book.admit(row).pipe(Effect.either)
        if (Either.isLeft(breach)) {
          blocked.current = { _tag: "Unchecked", why: `guards not checked: ${breach.left.message}` }
          return false
        }
        if (breach.right !== undefined) {
          blocked.current = { _tag: "Guard", breach: breach.right }
          return false
        }
        return true
      })

    /** A row stopped before its POST: a halt or an unreadable store puts it back; a guard skips it. */
    const notSent = (row: Row, blocked: Blocked) =>
      Effect.gen(function* () {
        unsent.delete(row.idx)
        if (blocked._tag === "Guard") {
          yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: blocked.breach.reason, source: "preflight" })
        } else {
          yield* store.batch(accountId, batchId).releaseRows([row.idx], `not sent: ${blocked.why}`, ctx.owner).pipe(Effect.orDie)
        }
      }).pipe(Effect.ensuring(book.drop(row.idx)))

    const submitRow = Effect.fn("Submitter.send")(function* (row: Row, resend: boolean) {
        const stopped = yield* Ref.get(ctx.stoppedCurrencies)
        if (stopped.has(row.currency)) {
          return yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: "insufficient balance", source: "response" }).pipe(Effect.ensuring(book.drop(row.idx)))
        }
        if ((yield* Ref.get(ctx.stop)) !== undefined) {
          return yield* store.batch(accountId, batchId).releaseRows([row.idx], "run stopped before sending").pipe(Effect.orDie, Effect.asVoid, Effect.ensuring(book.drop(row.idx)))
        }
        if (yield* ctx.safeguards.holds(row.operator)) {
          return yield* store.batch(accountId, batchId).releaseRows([row.idx], "held by a safeguard before sending").pipe(Effect.orDie, Effect.asVoid, Effect.ensuring(book.drop(row.idx)))
        }
        const halt = yield* ctx.safeguards.halt
        if (Option.isSome(halt)) return yield* notSent(row, { _tag: "Halt", why: describeHalt(halt.value) })
        const body = payoutRequest(row, ctx.settings)
        unsent.delete(row.idx)
        yield* Ref.set(ctx.sentAny, true)
        const blocked: { current?: Blocked } = {}
        yield* client.payout(body, mayStillSend(row, resend, blocked)).pipe(
          Effect.retry({ schedule: sendSchedule, while: (e) => resendable(e) && !fenced(e) }),
          Effect.matchEffect({
            onFailure: (e) => (fenced(e) && blocked.current !== undefined ? notSent(row, blocked.current) : refused(row, e)),
            onSuccess: (r) => accepted(row, r)
          })
        )
      })

    // Each row runs in a fiber of its own that an interruption of the run does not reach: Ctrl-C
    // stops new claims, while a POST already sent finishes (or times out) and its answer is recorded.
    const inFlight = new Set<Fiber.RuntimeFiber<void>>()
    const submitOne = (row: Row, resend = false) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.forkDaemon(submitRow(row, resend))
        inFlight.add(fiber)
        yield* Fiber.await(fiber).pipe(Effect.ensuring(Effect.sync(() => inFlight.delete(fiber))))
      })

    /** Waits for every row already being sent. */
    const awaitInFlight = Effect.suspend(() => Fiber.awaitAll([...inFlight])).pipe(Effect.asVoid)

    const claimGroup = Effect.gen(function* () {
      if ((yield* Ref.get(ctx.stop)) !== undefined || (yield* ctx.safeguards.paused) !== undefined) return Option.none()
      // An account halt claims nothing: the rows stay validated for the first run after it is lifted.
      if (Option.isSome(yield* ctx.safeguards.halt)) return Option.none()
      const excludeOperators = [...(yield* ctx.safeguards.openCircuits).keys()]
      // A lease that may have lapsed (a renewal late or failing) claims nothing until renewed.
      if (!(yield* leaseValid(ctx))) return Option.none()
      const rows = yield* store.batch(accountId, batchId).claimRows({ limit: ctx.settings.concurrency, excludeOperators, fence: ctx.fence }).pipe(Effect.orDie)
      for (const r of rows) unsent.add(r.idx)
      yield* book.claimed(rows)
      return rows.length === 0 ? Option.none() : Option.some(rows)
    })

    /** Sends every validated row; returns when none is left or the run must stop. */
    const submitAll = Stream.repeatEffectOption(
      claimGroup.pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(Option.none()), onSome: Effect.succeed })))
    ).pipe(
      Stream.flattenIterables,
      Stream.mapEffect((row) => submitOne(row), { concurrency: ctx.settings.concurrency, unordered: true }),
      Stream.runDrain
    )

    /** Sends rows the reconciler cleared for a resend (unknown -> submitting, a new intent). */
    const resend = (rows: ReadonlyArray<Row>) =>
      Effect.suspend(() => {
        for (const r of rows) unsent.add(r.idx)
        return Effect.forEach(rows, (row) => submitOne(row, true), { concurrency: ctx.settings.concurrency, discard: true })
      })

    /** Puts back every claimed row whose POST never started (validated again). */
    const releaseUnsent = Effect.suspend(() => {
      const idxs = [...unsent]
      unsent.clear()
      return idxs.length === 0 ? Effect.void : store.batch(accountId, batchId).releaseRows(idxs, "runner stopped before sending", ctx.owner).pipe(Effect.asVoid)
    })

    return { submitAll, resend, awaitInFlight, releaseUnsent } as const
  })
