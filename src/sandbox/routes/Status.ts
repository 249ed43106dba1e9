/** GET /v1/payment/status/{reference}: 90 days of history; 404 envelope A otherwise. */
import { HttpRouter } from "@effect/platform"
import { Effect, Ref } from "effect"
import type { StatusResponse } from "../../api/Schemas.ts"
import { DAY } from "../Clock.ts"
import { SandboxContext } from "../Context.ts"
import { answerA, answerOk, type Answer, jsonOf, toResponse } from "../Http.ts"
import { txnOf } from "../State.ts"
import { statusRecordView } from "../Views.ts"
import { statusLie } from "../AnswerFaults.ts"

export const HISTORY_DAYS = 90

export const statusAnswer = (reference: string, now: number): Effect.Effect<Answer, never, SandboxContext> =>
  Effect.gen(function* () {
    const ctx = yield* SandboxContext
    const state = yield* Ref.get(ctx.state)
    const txn = txnOf(state, reference)
    if (txn === undefined || txn.type === "adjustment" || txn.createdAt < now - HISTORY_DAYS * DAY) {
      return answerA(404, "Transaction not found", { reference: [`No transaction exists with reference ${reference}`] })
    }
    const data = yield* statusLie(ctx.faults, state, txn, statusRecordView(txn))
    return answerOk(jsonOf<typeof StatusResponse.Encoded>({ success: true, message: "Transaction status retrieved successfully", data }))
  })

export const statusRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/v1/payment/status/:reference",
    Effect.gen(function* () {
      const { reference = "" } = yield* HttpRouter.params
      const { clock } = yield* SandboxContext
      return toResponse(yield* statusAnswer(reference, yield* clock.now))
    })
  )
)
