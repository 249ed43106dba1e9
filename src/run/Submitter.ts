/**
 * Submission: claim rows (the durable intent, in groups), POST each payout once, record what came
 * back. The POST is never retried blindly: only failures known to happen before the request reached
 * the service (not sent, 429) are sent again; anything else after sending goes to reconciliation.
 */
import { Effect, Equal, Fiber, type FiberId, HashMap, Option, Ref, Schedule } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { retryAfterFailure } from "../api/Retrying.ts"
import type { ClientError } from "../api/Errors.ts"
import type { Row } from "../store/Model.ts"
import { Claims } from "../store/Sql/Claims.ts"
import { makeGuardBook } from "../intake/Guards.ts"
import { fenced, makeAnswers, releasedByRefusal } from "./Answers.ts"
import { type Blocked, makeNotSent } from "./NotSent.ts"
import { payoutRequest } from "./PayoutBody.ts"
import { leaseValid, RunContext } from "./RunContext.ts"
import { describeHalt, Safeguards } from "./Safeguards.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { sendInSlots } from "./SendSlots.ts"
import { makeUnsentRows } from "./UnsentRows.ts"

/** Safe to send again: the request never reached the service, or it was refused by rate (429). */
const resendable = (e: ClientError) => e._tag === "NotSent" || e._tag === "RateLimited"

// A try again only of what never reached the service; built once (Effect.retry given options builds it per call).
const sendPolicy = Schedule.exponential("200 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(6)),
  Schedule.upTo("2 minutes"),
  Schedule.whileInput((e: ClientError) => resendable(e) && !fenced(e))
)

const make = Effect.gen(function* () {
  const ctx = yield* RunContext
  const client = yield* PaymentClient
  const writer = yield* TransitionWriter
  const safeguards = yield* Safeguards
  const claims = yield* Claims
  const { accountId, batchId } = ctx
  const book = yield* makeGuardBook(accountId, batchId, safeguards.settings.guards)

  const { accepted, refused } = yield* makeAnswers

  // Claimed rows whose POST has not begun: a runner that stops (Ctrl-C, SIGTERM, a lost lease)
  // releases them (DESIGN 7, rule 5), so only rows that may really have reached the service are left
  // for reconciliation; a request already on its way finishes.
  const unsent = yield* makeUnsentRows

  // Whether the last submitAll left rows for a probe window: the run turns again rather than ending
  // (a window may open between the last claim and the run's check that nothing is in flight).
  const probeHeld = yield* Ref.make(false)
  // Whether the last submitAll left rows for a lease not valid at the claim or the send: the run turns
  // again, as the lease may be renewed between that moment and the run's own look at it.
  const leaseHeld = yield* Ref.make(false)

  const { whyNotSend, notSent, putBack } = yield* makeNotSent({ unsent, book, probeHeld, leaseHeld })

  // Per payout, untraced as the client's calls: a span and a call-site stack trace per call for nothing.
  const submitRow = Effect.fnUntraced(function* (row: Row, resend: boolean) {
      const stopped = yield* Ref.get(ctx.stoppedCurrencies)
      if (stopped.has(row.currency)) {
        if (!(yield* unsent.take(row.idx))) return
        return yield* writer.record({ idx: row.idx, from: ["submitting"], to: "skipped", error: "insufficient balance", source: "response" }).pipe(Effect.ensuring(book.drop(row.idx)))
      }
      if ((yield* Ref.get(ctx.stop)) !== undefined) {
        return yield* putBack(row, "run stopped before sending").pipe(Effect.ensuring(book.drop(row.idx)))
      }
      if (yield* safeguards.holds(row.operator)) {
        return yield* putBack(row, "held by a safeguard before sending").pipe(Effect.ensuring(book.drop(row.idx)))
      }
      const halt = yield* safeguards.halt
      if (Option.isSome(halt)) return yield* notSent(row, { _tag: "Halt", why: describeHalt(halt.value) })
      const body = payoutRequest(row, ctx.settings)
      // Why the client's last gate said no, kept for the failure it then ends with.
      const blocked = yield* Ref.make<Blocked | undefined>(undefined)
      const mayStillSend = Effect.flatMap(whyNotSend(row, resend), (why) => Effect.as(Ref.set(blocked, why), why === undefined))
      // A try that never reached the service (or was refused by rate) leaves the row unsent while it
      // waits to try again: a stop meanwhile releases it at once instead of waiting for the backoff.
      const attempt = client.payout(body, mayStillSend).pipe(
        Effect.tapError((e) => (resendable(e) && !fenced(e) ? unsent.retry(row.idx) : Effect.void))
      )
      yield* retryAfterFailure(attempt, sendPolicy).pipe(
        Effect.matchEffect({
          // A row left unsent by its last try is put back by `refused`: no longer this run's to release.
          onFailure: (e) =>
            Effect.flatMap(Ref.get(blocked), (why) =>
              fenced(e) && why !== undefined
                ? notSent(row, why)
                : Effect.zipRight(unsent.take(row.idx), refused(row, e)).pipe(
                  // Released by `refused` (never reached the service): its place in the probe window is free.
                  Effect.zipLeft(releasedByRefusal(e) ? safeguards.unadmit(row.idx) : Effect.void)
                )),
          onSuccess: (r) => accepted(row, r)
        })
      )
    })

  // Each row runs in a fiber of its own that an interruption of the run does not reach: Ctrl-C
  // stops new claims, while a POST already sent finishes (or times out) and its answer is recorded.
  // (Freeing the slot once the POST is over, with the answer recorded behind it, was measured at half
  // the latency-bound throughput: the slot stays until the answer is written.)
  // A fiber leaves the map when it ends, not when its slot stops waiting for it (an interrupted slot
  // would otherwise hide a POST still under way from awaitInFlight). Not a FiberMap: closing its scope would interrupt them.
  const inFlight = yield* Ref.make(HashMap.empty<number, Fiber.RuntimeFiber<void>>())
  /** Removes a row's entry if it is still this fiber's (a newer fiber of the same row keeps its own). */
  const forget = (idx: number, id: FiberId.Runtime) =>
    Ref.update(inFlight, (m) => (Option.exists(HashMap.get(m, idx), (f) => Equal.equals(f.id(), id)) ? HashMap.remove(m, idx) : m))
  // Forked and entered in one uninterruptible step (the fiber runs as interruptible as its caller):
  // a stop never misses a fiber started. One that ended before it was entered is taken out here.
  const start = (row: Row, resend: boolean) =>
    Effect.uninterruptibleMask((restore) => Effect.flatMap(
      Effect.forkDaemon(restore(submitRow(row, resend).pipe(
        Effect.ensuring(unsent.done(row.idx)),
        Effect.ensuring(Effect.fiberIdWith((id) => forget(row.idx, id)))
      ))),
      (fiber) => Ref.update(inFlight, HashMap.set(row.idx, fiber)).pipe(
        Effect.zipRight(Fiber.poll(fiber)),
        Effect.flatMap((ended) => (Option.isSome(ended) ? forget(row.idx, fiber.id()) : Effect.void)),
        Effect.as(fiber)
      )
    ))
  const submitOne = (row: Row, resend = false) => Effect.asVoid(Effect.flatMap(start(row, resend), Fiber.await))

  /** Waits for every row already being sent. */
  const awaitInFlight = Effect.flatMap(Ref.get(inFlight), (m) => Fiber.awaitAll(HashMap.values(m))).pipe(Effect.asVoid)

  const claimGroup = Effect.gen(function* () {
    if ((yield* Ref.get(ctx.stop)) !== undefined || (yield* safeguards.paused) !== undefined || (yield* unsent.closed)) return Option.none()
    // An account halt claims nothing: the rows stay validated for the first run after it is lifted.
    if (Option.isSome(yield* safeguards.halt)) return Option.none()
    // Operators whose probe window is full are not claimed until one of their payouts settles.
    // (An operator whose breaker tripped is held for good: nothing to wait for.)
    const circuits = yield* safeguards.openCircuits
    const probing = (yield* safeguards.probing).filter((operator) => !circuits.has(operator))
    if (probing.length > 0) yield* Ref.set(probeHeld, true)
    const excludeOperators = [...circuits.keys(), ...probing]
    // A lease that may have lapsed (a renewal late or failing) claims nothing until renewed.
    if (!(yield* leaseValid(ctx))) return yield* Effect.as(Ref.set(leaseHeld, true), Option.none())
    // The claim and its count as unsent in one uninterruptible step: a stop never finds rows claimed
    // that it does not know to release.
    const rows = yield* Effect.uninterruptible(
      Effect.tap(claims.claimRows(accountId, batchId, { limit: ctx.settings.concurrency, excludeOperators, fence: ctx.fence }).pipe(Effect.orDie), (claimed) =>
        unsent.claimed(claimed.map((r) => r.idx)))
    )
    yield* book.claimed(rows)
    return rows.length === 0 ? Option.none() : Option.some(rows)
  })

  /** Sends every validated row (SendSlots.ts); returns when none is left or the run must stop. */
  const submitAll = Effect.zipRight(
    Effect.zipRight(Ref.set(leaseHeld, false), Ref.set(probeHeld, false)),
    sendInSlots(ctx.settings.concurrency, claimGroup, (row: Row) => submitOne(row))
  )

  /**
   * Claims a row the reconciler cleared for a resend (unknown -> submitting, a new intent) and counts
   * it unsent in the same uninterruptible step: a stop right after the claim puts it back to unknown
   * with its one resend not spent, never leaves it claimed.
   */
  const claimResend = (idx: number, detail: string) =>
    Effect.uninterruptible(
      Effect.tap(claims.claimForResend(accountId, batchId, [idx], detail, ctx.fence).pipe(Effect.orDie), (rows) => unsent.claimed(rows.map((r) => r.idx)))
    )

  /** Sends rows claimed with claimResend. */
  const resend = (rows: ReadonlyArray<Row>) =>
    Effect.zipRight(
      unsent.claimed(rows.map((r) => r.idx)),
      Effect.forEach(rows, (row) => submitOne(row, true), { concurrency: ctx.settings.concurrency, discard: true })
    )

  /**
   * Stops sending: no POST begins any more; every claimed row whose POST has not begun (claimed ahead,
   * waiting for a rate slot, queued for a resend) is released at once (validated again; a resend
   * unknown again, its resend not spent) and its fiber stopped. Returns how many rows were released.
   * Rows whose POST began are left to finish: awaitInFlight waits for their answers.
   */
  const stopSending = Effect.gen(function* () {
    const idxs = yield* unsent.close
    if (idxs.length === 0) return 0
    const fibers = yield* Ref.get(inFlight)
    const waiting = idxs.flatMap((idx) => Option.toArray(HashMap.get(fibers, idx)))
    yield* Fiber.interruptAll(waiting)
    const released = yield* claims.releaseRows(accountId, batchId, idxs, "not sent: the run was stopped", ctx.owner)
    yield* Effect.forEach(idxs, (idx) => book.drop(idx), { discard: true })
    return released.length
  })

  yield* Effect.addFinalizer(() => stopSending.pipe(Effect.ignore))
  return { submitAll, claimResend, resend, awaitInFlight, stopSending, stopped: unsent.closed, probeHeld: Ref.get(probeHeld), leaseHeld: Ref.get(leaseHeld) } as const
})

/** Sends the run's rows, each payout once; rows it claimed and never sent are released when the run ends. */
export class Submitter extends Effect.Service<Submitter>()("run/Submitter", { scoped: make }) {}
