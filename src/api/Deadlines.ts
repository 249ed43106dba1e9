/**
 * Request timeouts without a race per request: one fiber per client sleeps (on the fiber's Clock, so
 * TestClock drives it) until the earliest pending deadline and fires what is due. `Effect.timeoutFail`
 * forks two fibers per request; an entry here is an object in an array.
 */
import { Duration, Effect, type Scope } from "effect"

export interface Deadline {
  readonly at: number
  fire: (() => void) | undefined
}

export interface Deadlines {
  /** Calls `fire` once `after` has passed, unless `cancel`ed first. */
  readonly add: (after: Duration.Duration, fire: () => void) => Deadline
  readonly cancel: (deadline: Deadline) => void
}

export const makeDeadlines: Effect.Effect<Deadlines, never, Scope.Scope> = Effect.gen(function*() {
  const clock = yield* Effect.clock
  // Monotonic on the live clock (hrtime), test time under TestClock.
  const nowMs = () => Number(clock.unsafeCurrentTimeNanos()) / 1e6
  // Sorted by `at`; entries before `head` are gone. With one timeout per client every entry lands at the end.
  let queue: Array<Deadline> = []
  let head = 0
  let live = 0
  let sleepingUntil: number | undefined
  let wake: (() => void) | undefined

  const dropSettledHead = () => {
    while (head < queue.length && queue[head].fire === undefined) head++
    // Keep the array within twice what is pending: a request stuck at the head keeps the later ones.
    if (head === queue.length) {
      queue = []
      head = 0
    } else if (queue.length - head > 2 * live + 64) {
      queue = queue.slice(head).filter((d) => d.fire !== undefined)
      head = 0
    }
  }

  const add = (after: Duration.Duration, fire: () => void): Deadline => {
    const deadline: Deadline = { at: nowMs() + Duration.toMillis(after), fire }
    let i = queue.length
    while (i > head && queue[i - 1].at > deadline.at) i--
    if (i === queue.length) queue.push(deadline)
    else queue.splice(i, 0, deadline)
    live++
    if (wake !== undefined && (sleepingUntil === undefined || deadline.at < sleepingUntil)) wake()
    return deadline
  }

  const cancel = (deadline: Deadline) => {
    if (deadline.fire === undefined) return
    deadline.fire = undefined
    live--
    dropSettledHead()
    // Nothing pending: the sleeper stops its timer, which would otherwise hold the process open.
    if (live === 0 && sleepingUntil !== undefined && wake !== undefined) wake()
  }

  const fireDue = () => {
    const now = nowMs()
    while (head < queue.length && queue[head].at <= now) {
      const { fire } = queue[head]
      queue[head].fire = undefined
      head++
      if (fire !== undefined) {
        live--
        fire()
      }
    }
    dropSettledHead()
  }

  const woken = Effect.async<void>((resume) => {
    wake = () => {
      wake = undefined
      resume(Effect.void)
    }
    return Effect.sync(() => {
      wake = undefined
    })
  })

  const step = Effect.suspend(() => {
    fireDue()
    if (head === queue.length) {
      sleepingUntil = undefined
      return woken
    }
    sleepingUntil = queue[head].at
    return Effect.raceFirst(woken, Effect.sleep(Duration.millis(Math.max(0, sleepingUntil - nowMs()))))
  })

  yield* Effect.forkScoped(Effect.forever(step))
  return { add, cancel }
})
