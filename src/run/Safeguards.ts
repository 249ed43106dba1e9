/**
 * Safeguards fed by the rows' final outcomes: a stop rule pauses the whole batch when too many of
 * the settled rows fail, and a circuit breaker per operator holds one operator's rows after
 * consecutive failures while the others go on. Both only stop new payouts; what was sent is followed
 * to its end. A paused batch stays paused in the store until `payouts resume` (SafeguardsSummary.ts
 * pauses it at the run's end).
 */
import { Clock, Context, Effect, HashSet, Option, Queue, Ref, Stream } from "effect"
import type { Halt } from "../store/AccountModel.ts"
import type { Transition } from "../store/Model.ts"
import { SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { makeHaltWatch } from "./HaltWatch.ts"
import { RunEvent, tell } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"
import { DEFAULT_SAFEGUARDS, type SafeguardSettings } from "./SafeguardSettings.ts"
import * as Breaker from "./Breaker.ts"
import * as ProbeWindow from "./ProbeWindow.ts"

export interface SafeguardsShape {
  readonly settings: SafeguardSettings
  /** Called with every transition the run records; counts each row's first outcome once. */
  readonly observe: (transition: Transition) => Effect.Effect<void>
  /**
   * A row's POST begins: its place in its operator's submission order (the breaker counts consecutive
   * failures in that order), and its operator known without reading the row back.
   */
  readonly sending: (idx: number, operator: string) => Effect.Effect<void>
  /**
   * Asked right before a row's POST begins: false while its operator, not yet proven by a completed
   * payout, already had `breakerFailures` payouts sent (ProbeWindow.ts). True counts the row in that
   * window; `unadmit` frees its place if it never left.
   */
  readonly admit: (idx: number, operator: string) => Effect.Effect<boolean>
  readonly unadmit: (idx: number) => Effect.Effect<void>
  /** Operators whose probe window is full now (none of their rows is claimed); opens the windows that waited too long. */
  readonly probing: Effect.Effect<ReadonlyArray<string>>
  /** Resolves when a full probe window opens (its operator's first completion): the rows it held may be claimed. */
  readonly windowOpens: Effect.Effect<void>
  /** Pauses the whole batch (no new payouts); the first reason wins. */
  readonly pause: (reason: string) => Effect.Effect<void>
  readonly paused: Effect.Effect<string | undefined>
  /** Operators whose circuit is open, with the reason. */
  readonly openCircuits: Effect.Effect<ReadonlyMap<string, string>>
  /** True when no new payout may go to this operator. */
  readonly holds: (operator: string) => Effect.Effect<boolean>
  /** Why rows are held, if any are: the batch's pause reason in the store. */
  readonly reason: Effect.Effect<string | undefined>
  /** The account's halt in force (`payouts halt`), read from the store at most about once a second. */
  readonly halt: Effect.Effect<Option.Option<Halt>>
}

/** How a halt reads in messages and the summary. */
export const describeHalt = (halt: Halt) => `account halted by ${halt.by} at ${new Date(halt.at).toISOString()}: ${halt.reason}`

const percent = (x: number) => `${Math.round(x * 100)}%`

/**
 * A reason to send no new payout, given from outside the run (a job whose file changed after it was
 * taken): asked before each claim and each POST, so it must be cheap (a Ref read).
 */
export class RunHold extends Context.Tag("run/RunHold")<RunHold, Effect.Effect<string | undefined>>() {}

const make = Effect.gen(function* () {
  const { accountId, batchId, settings: run } = yield* RunContext
  const reads = yield* Rows
  const settings: SafeguardSettings = { ...DEFAULT_SAFEGUARDS, ...run.safeguards }
  const paused = yield* Ref.make<string | undefined>(undefined)
  const circuits = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  // The stop rule's count: rows settled once each, and how many of them failed.
  const tally = yield* Ref.make<{ readonly seen: HashSet.HashSet<number>; readonly settled: number; readonly failures: number }>({ seen: HashSet.empty(), settled: 0, failures: 0 })
  // The breaker's count and the probe windows in one Ref: a row's outcome updates both at once.
  const count = yield* Ref.make({ breaker: Breaker.empty, probes: ProbeWindow.make(settings.breakerFailures, settings.breakerProbeMs) })
  // An unchanged window (an open operator) keeps the same value: nothing allocated on the hot path.
  const modifyProbes = <A>(f: (w: ProbeWindow.ProbeWindow) => readonly [A, ProbeWindow.ProbeWindow]) =>
    Ref.modify(count, (c) => {
      const [a, probes] = f(c.probes)
      return [a, probes === c.probes ? c : { ...c, probes }] as const
    })
  const updateProbes = (f: (w: ProbeWindow.ProbeWindow) => ProbeWindow.ProbeWindow) => modifyProbes((w) => [undefined, f(w)] as const)
  // Operators already looked for among the batch's completed rows (an earlier run paid one of them).
  const lookedUp = yield* Ref.make<ReadonlySet<string>>(new Set())
  // One pending signal is enough: whoever waits claims every operator's rows that are free by then.
  const windowOpened = yield* Queue.sliding<void>(1)

  const pause = (reason: string) => Ref.update(paused, (current) => current ?? reason)
  const outside = yield* Effect.serviceOption(RunHold)
  // A hold from outside (the job's look at its file) pauses the batch the first time it says why.
  const pausedNow: Effect.Effect<string | undefined> = Option.match(outside, {
    onNone: () => Ref.get(paused),
    onSome: (hold) => Effect.flatMap(hold, (why) => (why === undefined ? Ref.get(paused) : Effect.zipRight(pause(why), Ref.get(paused))))
  })
  const halt = yield* makeHaltWatch(accountId)
  const haltedAtStart = yield* halt
  if (Option.isSome(haltedAtStart)) {
    yield* tell(RunEvent.HaltedAtStart({ halt: haltedAtStart.value }))
  }

  /** The operator of a row this run did not send (an earlier run did), read back from the store. */
  const operatorOfEarlier = (idx: number): Effect.Effect<string | undefined> =>
    Effect.flatMap(Ref.get(count), ({ breaker }) =>
      Breaker.knows(breaker, idx)
        ? Effect.succeed(undefined)
        : reads.getRow(accountId, batchId, idx).pipe(
            Effect.map(Option.map((row) => row.operator)),
            Effect.map(Option.getOrUndefined),
            Effect.orElseSucceed(() => undefined)
          )
    )

  const observe = (t: Transition) =>
    Effect.gen(function* () {
      const failed = SETTLED_FAILURE_STATES.includes(t.to)
      // Skipped right before its POST (a guard, the balance): never sent, its place is free again.
      if (t.to === "skipped") {
        const now = yield* Clock.currentTimeMillis
        yield* updateProbes((w) => ProbeWindow.cancel(w, t.idx, now))
      }
      if (!failed && t.to !== "completed") return
      const counted = yield* Ref.modify(tally, (before) =>
        HashSet.has(before.seen, t.idx)
          ? [undefined, before]
          : ((after) => [after, after] as const)({ seen: HashSet.add(before.seen, t.idx), settled: before.settled + 1, failures: before.failures + (failed ? 1 : 0) })
      )
      if (counted === undefined) return
      const { failures, settled } = counted
      if (settled >= settings.stopMinSettled && failures / settled > settings.stopFailureRatio) {
        yield* pause(
          `stop rule: ${failures} of ${settled} settled rows failed (${percent(failures / settled)} > ${percent(settings.stopFailureRatio)})`
        )
      }
      if (settings.breakerFailures <= 0) return
      const earlier = yield* operatorOfEarlier(t.idx)
      const now = yield* Clock.currentTimeMillis
      const [lane, opens] = yield* Ref.modify(count, ({ breaker, probes }) => {
        const [inLane, breakerAfter] = Breaker.settled(breaker, t.idx, failed, earlier)
        const [opened, probesAfter] = ProbeWindow.settled(probes, t.idx, inLane?.operator, !failed, now)
        return [[inLane, opened] as const, { breaker: breakerAfter, probes: probesAfter }] as const
      })
      if (opens) yield* Queue.offer(windowOpened, undefined)
      if (lane === undefined || lane.run < settings.breakerFailures) return
      const { operator, run } = lane
      const opened = yield* Ref.modify(circuits, (open) =>
        open.has(operator) ? [false, open] : [true, new Map([...open, [operator, `${run} consecutive failures`]])]
      )
      if (opened) {
        yield* tell(RunEvent.BreakerTripped({ operator, run }))
      }
    })

  /** A resumed batch: a row of the operator completed by an earlier run opens its window (looked up once, when it fills). */
  const completedBefore = (operator: string) =>
    reads.streamRowsInStates(accountId, batchId, ["completed"]).pipe(
      Stream.filter((row) => row.operator === operator),
      Stream.take(1),
      Stream.runCount,
      Effect.map((n) => n > 0),
      Effect.orElseSucceed(() => false)
    )

  const probing = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    for (const operator of yield* modifyProbes((w) => ProbeWindow.expire(w, now))) {
      yield* tell(RunEvent.ProbeExpired({ operator, probeMs: settings.breakerProbeMs, first: settings.breakerFailures }))
    }
    for (const operator of ProbeWindow.full((yield* Ref.get(count)).probes)) {
      const first = yield* Ref.modify(lookedUp, (done) => (done.has(operator) ? [false, done] : [true, new Set([...done, operator])]))
      if (first && (yield* completedBefore(operator))) yield* updateProbes((w) => ProbeWindow.open(w, operator))
    }
    return ProbeWindow.full((yield* Ref.get(count)).probes)
  })

  // The breaker first: it names the operator whose rows are held, whatever paused the rest.
  const reason = Effect.gen(function* () {
    const whole = yield* pausedNow
    const open = yield* Ref.get(circuits)
    const tripped = open.size === 0 ? undefined : `breaker tripped for ${[...open].map(([op, why]) => `${op} (${why})`).join(", ")}`
    return tripped === undefined ? whole : whole === undefined ? tripped : `${tripped}; ${whole}`
  })

  return {
    settings,
    observe,
    sending: (idx, operator) => Ref.update(count, (c) => ({ ...c, breaker: Breaker.sending(c.breaker, idx, operator) })),
    admit: (idx, operator) => Effect.flatMap(Clock.currentTimeMillis, (now) => modifyProbes((w) => ProbeWindow.admit(w, idx, operator, now))),
    unadmit: (idx) => Effect.flatMap(Clock.currentTimeMillis, (now) => updateProbes((w) => ProbeWindow.cancel(w, idx, now))),
    probing,
    windowOpens: Queue.take(windowOpened),
    pause,
    paused: pausedNow,
    openCircuits: Ref.get(circuits),
    // Asked twice per payout: two plain steps, where Effect.all would run a loop of its own.
    holds: (operator: string) =>
      Effect.flatMap(pausedNow, (p) => (p !== undefined ? Effect.succeed(true) : Effect.map(Ref.get(circuits), (open) => open.has(operator)))),
    reason,
    halt
  } satisfies SafeguardsShape
})

/** The run's stop rule, circuit breaker and the account's halt: one per run, fed by every recorded transition. */
export class Safeguards extends Effect.Service<Safeguards>()("run/Safeguards", { effect: make }) {}
