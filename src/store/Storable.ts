/**
 * The write path held to the read path's schema: a transition whose values `Row` (Model.ts) could not
 * decode is refused before anything is written, so no later read of the batch (run, ledger, reconcile)
 * can fail on it. Both adapters call this first.
 */
import { Effect, Schema } from "effect"
import { Row, StoreError, type Transition } from "./Model.ts"

const isFee = Schema.is(Row.fields.feeMinor)
const isReference = Schema.is(Row.fields.reference)

const unstorable = (t: Transition): string | undefined => {
  if (t.feeMinor !== undefined && !isFee(t.feeMinor)) return `fee_minor ${String(t.feeMinor)}`
  if (t.reference !== undefined && !isReference(t.reference)) return `reference ${String(t.reference)}`
  return undefined
}

export const refuseUnstorable = (transitions: ReadonlyArray<Transition>): Effect.Effect<void, StoreError> => {
  for (const t of transitions) {
    const what = unstorable(t)
    if (what !== undefined) {
      return Effect.fail(new StoreError({ reason: "Conflict", message: `row ${t.idx}: ${what} could not be read back; not stored` }))
    }
  }
  return Effect.void
}
