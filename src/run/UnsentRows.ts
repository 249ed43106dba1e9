/**
 * The rows a runner has claimed (intent written, `submitting`) whose POST has not begun. A run that
 * stops releases exactly these (DESIGN 7, rule 5): back to `validated`, or a resend back to `unknown`.
 * The last check before a POST (`begin`) and the release at a stop (`close`) are each one step on one
 * Ref, so a row is either released or sent, never both; when in doubt a row stays claimed and is
 * reconciled like any ambiguous POST.
 */
import { Effect, Ref } from "effect"

/** `waiting`: claimed, not sent; `sending`: its POST has begun (or is about to, with nothing in between). */
type Phase = "waiting" | "sending"

interface State {
  readonly closed: boolean
  readonly rows: ReadonlyMap<number, Phase>
}

const withPhase = (rows: ReadonlyMap<number, Phase>, idx: number, phase: Phase | undefined) => {
  const next = new Map(rows)
  if (phase === undefined) next.delete(idx)
  else next.set(idx, phase)
  return next
}

export const makeUnsentRows = Effect.gen(function* () {
  const state = yield* Ref.make<State>({ closed: false, rows: new Map() })
  return {
    /** Rows just claimed: none of them is sent before `begin` allows it. */
    claimed: (idxs: ReadonlyArray<number>) =>
      Ref.update(state, (s) => ({ ...s, rows: new Map([...s.rows, ...idxs.map((idx) => [idx, "waiting"] as const)]) })),
    /**
     * Asked again before another try of a row's POST: the try before it is known not to have sent a
     * payout (the rate gate took a new slot, or the service answered 429 or was never reached).
     */
    retry: (idx: number) =>
      Ref.update(state, (s) => (s.rows.get(idx) === "sending" ? { ...s, rows: withPhase(s.rows, idx, "waiting") } : s)),
    /** The row's POST may begin now: true once, unless the run is stopping or the row was released. */
    begin: (idx: number) =>
      Ref.modify(state, (s) =>
        !s.closed && s.rows.get(idx) === "waiting" ? [true, { ...s, rows: withPhase(s.rows, idx, "sending") }] : [false, s]
      ),
    /** Takes a row that was never sent, to put it back (or skip it) alone: false if a stop already took it. */
    take: (idx: number) =>
      Ref.modify(state, (s) => (s.rows.get(idx) === "waiting" ? [true, { ...s, rows: withPhase(s.rows, idx, undefined) }] : [false, s])),
    /**
     * The row's POST is over (answered or refused). Only a sending row is dropped: a waiting one was
     * never sent and is released by `take` or `close` (or claimed again since, by a later group).
     */
    done: (idx: number) => Ref.update(state, (s) => (s.rows.get(idx) === "sending" ? { ...s, rows: withPhase(s.rows, idx, undefined) } : s)),
    /** True once the run is stopping: no POST begins any more. */
    closed: Effect.map(Ref.get(state), (s) => s.closed),
    /**
     * Stops every POST not yet begun and hands back the rows that were waiting (the caller releases
     * them); rows already sending stay to be answered. Called again, it takes rows claimed since.
     */
    close: Ref.modify(state, (s) => {
      const waiting = [...s.rows].filter(([, phase]) => phase === "waiting").map(([idx]) => idx)
      const sending = new Map([...s.rows].filter(([, phase]) => phase === "sending"))
      return [waiting, { closed: true, rows: sending }] as const
    })
  } as const
})

export type UnsentRows = Effect.Effect.Success<typeof makeUnsentRows>
