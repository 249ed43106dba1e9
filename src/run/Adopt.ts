/** Taking a listed payout as a row's own (reconciliation, the pre-scan): its state, reference, fee, and tracking. */
import { Effect } from "effect"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import type { EventSource } from "../store/Model.ts"
import { IN_FLIGHT_STATES, type RowState, stateOfStatus } from "../store/RowState.ts"
import { Tracker } from "./Tracker.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { Reference } from "../domain/Ids.ts"

export const adoptListed = (idx: number, from: RowState, payout: MirroredPayout, source: EventSource, detail: string) =>
  Effect.gen(function* () {
    const writer = yield* TransitionWriter
    const tracker = yield* Tracker
    const state = stateOfStatus(payout.status)
    yield* writer.record({
      idx,
      from: [from],
      to: state,
      reference: Reference.make(payout.reference),
      ...(payout.feeMinor === null ? {} : { feeMinor: payout.feeMinor }),
      source,
      detail
    })
    if (IN_FLIGHT_STATES.includes(state)) yield* tracker.follow({ idx, amountMinor: payout.amountMinor, currency: payout.currency }, payout.reference, false)
  })
