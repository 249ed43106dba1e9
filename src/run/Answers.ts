/**
 * What the service's answer to a payout POST does to its row: accepted (recorded and followed),
 * refused (failed, skipped for its currency's balance, or put back when it never left), or unknown
 * (sent without a usable answer: reconciliation decides, never a resend here).
 */
import { Effect, Either, Option, Ref, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { FENCED } from "../api/ClientApi.ts"
import { checkPayoutAnswer } from "../api/Plausible.ts"
import type { ClientError } from "../api/Errors.ts"
import type { PayoutResponse } from "../api/Schemas.ts"
import { fromWire } from "../domain/Money.ts"
import type { Row } from "../store/Model.ts"
import { Claims } from "../store/Sql/Claims.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { IN_FLIGHT_STATES, type RowState, stateOfStatus } from "../store/RowState.ts"
import { estimateFee } from "../domain/FeeEstimate.ts"
import { makeRaiseAnomaly } from "./Anomaly.ts"
import { RunContext } from "./RunContext.ts"
import { Tracker } from "./Tracker.ts"
import { TransitionWriter } from "./TransitionWriter.ts"

/** The runner lost its lease before the request left: it must not be sent by anyone but the new owner. */
export const fenced = (e: ClientError) => e._tag === "NotSent" && e.reason === FENCED

/** The refusals after which `refused` puts the row back to validated: no payout was made. */
export const releasedByRefusal = (e: ClientError) => e._tag === "NotSent" || e._tag === "RateLimited" || e._tag === "AuthError"

const fieldMessages = (errors: Readonly<Record<string, ReadonlyArray<string>>>) =>
  Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join("; ")}`)
    .join(" | ")

/** The submitter's handling of answers, one per run. */
export const makeAnswers = Effect.gen(function* () {
  const ctx = yield* RunContext
  const client = yield* PaymentClient
  const writer = yield* TransitionWriter
  const tracker = yield* Tracker
  const claims = yield* Claims
  const reads = yield* Rows
  const raiseAnomaly = yield* makeRaiseAnomaly
  const balanceLock = yield* Effect.makeSemaphore(1)
  const { accountId, batchId } = ctx

  const track = (row: Row, reference: string, state: RowState) =>
    IN_FLIGHT_STATES.includes(state) ? tracker.follow(row, reference, true) : Effect.void

  // Per payout: untraced, as the client's calls.
  const accepted = Effect.fnUntraced(function* (row: Row, response: PayoutResponse) {
      const fee = checkPayoutAnswer(response, row, client.scrub)
      if (Either.isLeft(fee)) {
        // Sent and answered with a reference, but an answer no payout of ours has: kept in flight
        // (never settled by it), nothing of it stored but the reference, and a person decides.
        yield* writer.record({ idx: row.idx, from: ["submitting"], to: "submitted", reference: response.reference, source: "response" })
        return yield* raiseAnomaly(ctx, row.idx, fee.left, [response.reference])
      }
      const state = stateOfStatus(response.status)
      yield* writer.record({
        idx: row.idx,
        from: ["submitting"],
        to: state,
        reference: response.reference,
        ...(fee.right === undefined ? {} : { feeMinor: fee.right }),
        source: "response"
      })
      yield* track(row, response.reference, state)
    })

  /** Marks every row of the currency not yet sent as skipped. */
  const skipCurrency = Effect.fn("Submitter.skipCurrency")(function* (currency: string, reason: string) {
      yield* Ref.update(ctx.stoppedCurrencies, (s) => new Set([...s, currency]))
      yield* reads.streamRowsInStates(accountId, batchId, ["validated"]).pipe(
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
        const left = yield* reads.streamRowsInStates(accountId, batchId, ["validated"]).pipe(
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
          claims.releaseRows(accountId, batchId, [row.idx], "credentials refused").pipe(Effect.orDie, Effect.asVoid)
        )
      case "NotSent":
        if (fenced(error)) {
          // Never sent: back to validated. Renewal decides whether this runner goes on (renewed)
          // or stops (the lease was taken: LeaseLost).
          return claims.releaseRows(accountId, batchId, [row.idx], "not sent: the lease may have lapsed", ctx.owner).pipe(Effect.orDie, Effect.asVoid)
        }
        return Effect.zipRight(
          Ref.set(ctx.stop, { _tag: "Unreachable", message: error.message }),
          claims.releaseRows(accountId, batchId, [row.idx], error.message).pipe(Effect.orDie, Effect.asVoid)
        )
      case "RateLimited":
        return Effect.zipRight(
          Ref.set(ctx.stop, { _tag: "Unreachable", message: error.message }),
          claims.releaseRows(accountId, batchId, [row.idx], error.message).pipe(Effect.orDie, Effect.asVoid)
        )
      default:
        // Sent, and no usable answer: the payout may exist. Reconciliation decides, never a resend here.
        return writer.record({ idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "response" })
    }
  }

  return { accepted, refused } as const
})
