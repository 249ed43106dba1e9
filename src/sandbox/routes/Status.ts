/** GET /v1/payment/status/{reference}: 90 days of history; 404 envelope A otherwise. */
import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { StatusResponse } from "../../api/Schemas.ts"
import { DAY } from "../Clock.ts"
import type { SandboxContext } from "../Context.ts"
import { envelopeA, ok } from "../Http.ts"
import { statusRecord } from "../Views.ts"

export const HISTORY_DAYS = 90

export const statusRoutes = (ctx: SandboxContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/v1/payment/status/:reference",
      Effect.gen(function* () {
        const { reference = "" } = yield* HttpRouter.params
        const now = yield* ctx.clock.now
        const txn = ctx.state.transactions[reference]
        if (txn === undefined || txn.type === "adjustment" || txn.createdAt < now - HISTORY_DAYS * DAY) {
          return envelopeA(404, "Transaction not found", {
            reference: [`No transaction exists with reference ${reference}`]
          })
        }
        const response = new StatusResponse({ success: true, message: "Transaction status retrieved successfully", data: statusRecord(txn) })
        return ok(Schema.encodeSync(StatusResponse)(response))
      })
    )
  )
