/**
 * A run inside its per-run services: alarms and intents of earlier runs, the lease kept, the pre-scan,
 * the balance preflight and the confirmation, then the loop (send, reconcile, track) until every row
 * is final or the run must stop, and the conclusion.
 */
import { Clock, Duration, Effect, Ref, Stream } from "effect"
import type { Intake } from "../intake/IntakeResult.ts"
import type { OutputPaths } from "../output/AtomicFile.ts"
import { writeLedgerFromStore } from "../output/Outputs.ts"
import type { StoreError } from "../store/Model.ts"
import { IN_FLIGHT_STATES, NOT_SENT_STATES } from "../store/RowState.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { loadPreflight } from "./BalanceCheck.ts"
import { makeConclusion } from "./Conclusion.ts"
import { EXIT_INCOMPLETE, EXIT_OK, EXIT_REFUSED } from "./ExitCode.ts"
import { keepLease } from "./LeaseKeeper.ts"
import { RunEvent, tell } from "./Notices.ts"
import { preScan } from "./PreScan.ts"
import { Progress } from "./Progress.ts"
import { Reconciler } from "./Reconciler.ts"
import { loadAlarms } from "./Recovery.ts"
import { leaseValid, RunContext } from "./RunContext.ts"
import type { RunRequest } from "./RunRequest.ts"
import { Safeguards } from "./Safeguards.ts"
import { Submitter } from "./Submitter.ts"
import { Tracker } from "./Tracker.ts"
import { TransitionWriter } from "./TransitionWriter.ts"

const TICK = Duration.millis(100)

export interface RunStepsInput {
  readonly request: RunRequest
  readonly loaded: Extract<Intake, { _tag: "Loaded" }>
  readonly paths: OutputPaths
  readonly startedAt: number
  readonly leaseTtl: Duration.Duration
  readonly leaseStart: number
}

export const runSteps = Effect.fn("Runner.steps")(function* (input: RunStepsInput) {
  const { leaseStart, leaseTtl, loaded, paths, request, startedAt } = input
  const ctx = yield* RunContext
  const writer = yield* TransitionWriter
  const safeguards = yield* Safeguards
  const submitter = yield* Submitter
  const reconciler = yield* Reconciler
  const tracker = yield* Tracker
  const [batches, reads] = yield* Effect.all([Batches, Rows])
  const { accountId, batchId } = ctx
  if (loaded.batch.state === "paused") {
    const why = loaded.batch.pauseReason ?? "paused"
    yield* safeguards.pause(why)
    yield* tell(RunEvent.BatchPaused({ batchId, why }))
  }

  // One ledger write at a time: a periodic write of an older snapshot must not land after the final one.
  const ledgerLock = yield* Effect.makeSemaphore(1)
  const prescanAdopted = yield* Ref.make(0)
  const { finish } = yield* makeConclusion({ request, paths, startedAt, resumed: loaded.resumed, ledgerLock, prescanAdopted, phones: loaded.phones })
  // Phones other batches paid to other names: said before anything is sent, never silently; once:
  // when a question is asked before paying, in it (confirmationOverview), not here as well.
  const phones = loaded.phones
  if (phones !== undefined && phones.historyCount > 0 && request.confirm === undefined) yield* tell(RunEvent.PhoneHistory({ phones }))
  if (!request.dryRun) {
    yield* loadAlarms()
    yield* keepLease(leaseTtl, leaseStart)
  }

  // Before any row is claimed: is any of it already paid (a lost, deleted or second store)?
  if (!request.dryRun) {
    const found = yield* preScan()
    yield* Ref.set(prescanAdopted, found.adopted)
  }

  const counts0 = yield* batches.countByState(accountId, batchId)
  const everSent = Object.entries(counts0).some(([s, n]) => n > 0 && !NOT_SENT_STATES.some((state) => state === s))
  const preflightResult = yield* loadPreflight().pipe(Effect.either)
  if (preflightResult._tag === "Left") {
    const error = preflightResult.left
    yield* tell(RunEvent.PreflightFailed({ error }))
    return yield* finish(`refused: ${error.message}`, everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "service")
  }
  const checked = preflightResult.right
  const figures = RunEvent.PreflightFigures({ result: checked })
  // The question before paying shows the figures: they are printed once, there, not before it as well.
  const asking = request.confirm !== undefined && (checked.ok || request.settings.onInsufficient === "partial")
  if (checked.checks.length > 0 && !asking) yield* tell(figures)
  // validate ends with its verdict, whichever way it goes.
  if (request.dryRun) yield* tell(RunEvent.Verdict({ result: checked, invalidRows: loaded.errors.length }))
  if (!checked.ok && request.settings.onInsufficient === "abort") {
    if (!request.dryRun) yield* tell(RunEvent.BalanceRefused())
    return yield* finish("refused: insufficient balance", everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "balance")
  }
  if (request.dryRun) {
    // validate: 0 when the file would be paid whole, 2 when it would not.
    const whole = checked.ok && loaded.errors.length === 0
    return yield* finish(whole ? "valid: would be paid whole" : "would not be paid whole", whole ? EXIT_OK : EXIT_REFUSED, loaded.errors.length > 0 ? "invalid-file" : "balance")
  }
  for (const idx of checked.skip) {
    yield* writer.record({ idx, from: ["validated"], to: "skipped", error: "insufficient balance (preflight)", source: "preflight" })
  }

  if (request.confirm !== undefined) {
    const toPay = (yield* batches.countByState(accountId, batchId)).validated
    if (toPay === 0 && asking && checked.checks.length > 0) yield* tell(figures)
    if (toPay > 0 && !(yield* request.confirm({ toPay, preflight: checked, phones }))) {
      // The closing line says it (cli/Closing.ts): "Not paid: you did not confirm; nothing was sent".
      return yield* finish("declined: not confirmed, nothing paid", everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "declined")
    }
  }

  // A previous run that stopped between intent and answer: reconcile, never resend blindly.
  yield* reads.streamRowsInStates(accountId, batchId, ["submitting"]).pipe(
    Stream.runForEach((r) =>
      writer.record({ idx: r.idx, from: ["submitting"], to: "unknown", source: "reconcile", detail: "found in submitting at start: the previous run stopped between intent and answer" })
    )
  )
  yield* reads.streamRowsInStates(accountId, batchId, IN_FLIGHT_STATES).pipe(
    Stream.runForEach((r) => (r.reference === null ? Effect.void : tracker.follow(r, r.reference, false)))
  )
  yield* writer.flush

  yield* Effect.forkScoped(tracker.run)
  yield* Effect.forkScoped((yield* Progress).report(request.progressEvery))
  yield* ledgerLock.withPermits(1)(writeLedgerFromStore(paths, accountId, batchId)).pipe(
    Effect.ignore,
    Effect.delay(request.ledgerEvery),
    Effect.forever,
    Effect.forkScoped
  )

  const reconcileEvery = Math.min(Math.max(request.settings.reconcileGraceMs / 4, 500), 30_000)
  // When the last reconciliation round began (0: none yet in this run).
  const lastReconcile = yield* Ref.make(0)
  /** One turn of the run: send what can be sent, reconcile when due; says when to turn again. */
  const turn: Effect.Effect<"now" | "later" | "done", StoreError> = Effect.gen(function* () {
    if ((yield* Ref.get(ctx.stop)) !== undefined) return "done"
    yield* submitter.submitAll
    const probeHeld = yield* submitter.probeHeld
    const leaseHeld = yield* submitter.leaseHeld
    yield* writer.flush
    const t = yield* Clock.currentTimeMillis
    // Whether more rows are unknown than under alarm, without counting a big batch every tick.
    const alarmed = (yield* Ref.get(ctx.alarms)).size
    const unknown = (yield* reads.rowsInStates(accountId, batchId, ["unknown"], { limit: alarmed + 1 })).length - alarmed
    if (unknown > 0 && t - (yield* Ref.get(lastReconcile)) >= reconcileEvery) {
      yield* Ref.set(lastReconcile, t)
      const r = yield* reconciler.round()
      if (r.resent > 0 || r.adopted > 0) return "now"
    }
    // Under an account alarm nothing can be proven: the unknown rows wait for a person.
    const blocked = (yield* Ref.get(ctx.accountAlarm)) !== undefined
    if ((unknown <= 0 || blocked) && (yield* tracker.tracked) === 0) {
      // Claims stopped because the lease's renewal is late (a loaded machine), not because nothing is
      // left: rows still to send wait for the renewal, for at most 30 s (or five lease times) past its
      // end. The submitter's word counts, not only the lease now: a renewal landing after its refused
      // claim made this turn end the run with rows never sent (exit 3).
      if (!request.dryRun && (leaseHeld || !(yield* leaseValid(ctx))) && t < (yield* Ref.get(ctx.leaseUntil)) + Math.max(30_000, 5 * Duration.toMillis(leaseTtl))) {
        if ((yield* reads.rowsInStates(accountId, batchId, ["validated"], { limit: 1 })).length > 0) return "later"
      }
      // Rows an operator's probe window kept back: its payouts have settled since, claim them now.
      if (probeHeld) return "later"
      // A last look for a second payout of any row resent in this run before the run ends.
      if ((yield* Ref.get(lastReconcile)) > 0 && !blocked) yield* reconciler.round()
      return "done"
    }
    return "later"
  }).pipe(Effect.withSpan("Runner.turn"))
  // Turn again at once after a resend or an adoption (there may be more to do), else after a tick,
  // or as soon as the last payout followed is final (the run ends then, not up to a tick later) or a
  // probe window opens (the rows it held are claimed then: at 320 payouts/s a tick is 32 payouts).
  const pause = (next: "now" | "later" | "done") =>
    next === "later" ? Effect.raceAll([Effect.sleep(TICK), tracker.becomesIdle, safeguards.windowOpens]) : Effect.void
  const loop = turn.pipe(
    Effect.tap(pause),
    Effect.repeat({ until: (next) => next === "done" })
  )
  yield* loop.pipe(
    Effect.onInterrupt(() =>
      Effect.gen(function* () {
        yield* tell(RunEvent.Interrupted())
        // A store that fails here leaves the rows claimed: the next run finds them in doubt (safe, slower).
        const released = yield* submitter.stopSending.pipe(Effect.either)
        yield* submitter.awaitInFlight
        yield* tell(released._tag === "Right" ? RunEvent.ClaimsReleased({ released: released.right }) : RunEvent.ClaimsNotReleased({ message: released.left.message }))
        yield* finish("interrupted", EXIT_INCOMPLETE)
      }).pipe(Effect.ignore)
    )
  )
  // Sending is over: a row still claimed and unsent (a stop for a lost lease) is released now.
  yield* submitter.stopSending
  const stop = yield* Ref.get(ctx.stop)
  if (stop !== undefined) {
    const why = stop._tag === "LeaseLost" ? "another process took over the batch's lease" : stop.message
    yield* tell(RunEvent.Stopped({ why }))
    // Requests already sent end (or time out) before the intents are released to the next runner.
    yield* submitter.awaitInFlight
    const sent = everSent || (yield* Ref.get(ctx.sentAny))
    return yield* finish(`stopped: ${why}`, stop._tag === "Auth" && !sent ? EXIT_REFUSED : EXIT_INCOMPLETE, "service")
  }
  return yield* finish("finished")
})
