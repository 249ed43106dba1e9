/**
 * The rows a runner has claimed (intent written, `submitting`) whose POST has not begun. A run that
 * stops releases exactly these (DESIGN 7, rule 5): back to `validated`, or a resend back to `unknown`.
 * The last check before a POST (`begin`) and the release at a stop (`close`) are each one step on one
 * Ref, so a row is either released or sent, never both; when in doubt a row stays claimed and is
 * reconciled like any ambiguous POST.
 */
import { Effect, HashMap, Option, Ref } from "effect"

/** `waiting`: claimed, not sent; `sending`: its POST has begun (or is about to, with nothing in between). */
type Phase = "waiting" | "sending"

// A persistent map: a row's change of phase (three per payout) copies a path, not the whole map.
interface State {
  readonly closed: boolean
  readonly rows: HashMap.HashMap<number, Phase>
}

const phaseOf = (rows: HashMap.HashMap<number, Phase>, idx: number): Phase | undefined => Option.getOrUndefined(HashMap.get(rows, idx))

export const makeUnsentRows = Effect.gen(function* () {
  const state = yield* Ref.make<State>({ closed: false, rows: HashMap.empty() })
  return {
    /** Rows just claimed: none of them is sent before `begin` allows it. */
    claimed: (idxs: ReadonlyArray<number>) =>
      Ref.update(state, (s) => ({ ...s, rows: HashMap.mutate(s.rows, (rows) => idxs.forEach((idx) => HashMap.set(rows, idx, "waiting"))) })),
    /**
     * Asked again before another try of a row's POST: the try before it is known not to have sent a
     * payout (the rate gate took a new slot, or the service answered 429 or was never reached).
     */
    retry: (idx: number) =>
      Ref.update(state, (s) => (phaseOf(s.rows, idx) === "sending" ? { ...s, rows: HashMap.set(s.rows, idx, "waiting") } : s)),
    /** The row's POST may begin now: true once, unless the run is stopping or the row was released. */
    begin: (idx: number) =>
      Ref.modify(state, (s) =>
        !s.closed && phaseOf(s.rows, idx) === "waiting" ? [true, { ...s, rows: HashMap.set(s.rows, idx, "sending") }] : [false, s]
      ),
    /** Takes a row that was never sent, to put it back (or skip it) alone: false if a stop already took it. */
    take: (idx: number) =>
      Ref.modify(state, (s) => (phaseOf(s.rows, idx) === "waiting" ? [true, { ...s, rows: HashMap.remove(s.rows, idx) }] : [false, s])),
    /**
     * The row's POST is over (answered or refused). Only a sending row is dropped: a waiting one was
     * never sent and is released by `take` or `close` (or claimed again since, by a later group).
     */
    done: (idx: number) => Ref.update(state, (s) => (phaseOf(s.rows, idx) === "sending" ? { ...s, rows: HashMap.remove(s.rows, idx) } : s)),
    /** True once the run is stopping: no POST begins any more. */
    closed: Effect.map(Ref.get(state), (s) => s.closed),
    /**
     * Stops every POST not yet begun and hands back the rows that were waiting (the caller releases
     * them); rows already sending stay to be answered. Called again, it takes rows claimed since.
     */
    close: Ref.modify(state, (s) => {
      const waiting = [...HashMap.keys(HashMap.filter(s.rows, (phase) => phase === "waiting"))].sort((a, b) => a - b)
      return [waiting, { closed: true, rows: HashMap.filter(s.rows, (phase) => phase === "sending") }] as const
    })
  } as const
})

export type UnsentRows = Effect.Effect.Success<typeof makeUnsentRows>
