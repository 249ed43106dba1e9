/** POST /v1/payments/payin/mobile-money and /card: validate (envelope B, 422), create, plan the outcome. */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Ref, Schema } from "effect"
import { CardPayinResponse, MobileMoneyPayinResponse } from "../../api/Schemas.ts"
import { iso } from "../Clock.ts"
import { SandboxContext } from "../Context.ts"
import { feeFor } from "../Fees.ts"
import { envelopeB, type FieldErrors, jsonBody, type JsonObject, ok } from "../Http.ts"
import { decodeCardPayin, decodeMobilePayin, errorMessage, type ValidPayin } from "../RequestBody.ts"
import { CARD_CHECKOUT_LIFETIME, createPayin, MOBILE_MONEY_LIFETIME } from "../Payins.ts"
import type { Plan } from "../State.ts"
import { payinOutcomeOf } from "../TestNumbers.ts"
import { ordinaryPlan } from "./Ordinary.ts"
import { Reference } from "../../domain/Ids.ts"

const mobilePlan = (ctx: SandboxContext["Type"], phone: string, now: number): Effect.Effect<Plan> =>
  Effect.gen(function* () {
    const delay = Math.round(ctx.settings.payinDelaySeconds * 1000)
    const processingAt = now + Math.floor(delay / 2)
    const finalAt = now + delay
    const expiresAt = now + MOBILE_MONEY_LIFETIME
    switch (payinOutcomeOf(phone)) {
      case "success":
        return { processingAt, finalAt, outcome: "completed", description: "Payment confirmed by the customer" }
      case "insufficient_funds":
        return { processingAt, finalAt, outcome: "failed", description: "Insufficient funds in the customer's account" }
      case "timeout":
        return { processingAt: expiresAt, finalAt: expiresAt, outcome: "expired", description: "The customer did not answer within 15 minutes" }
      case "cancelled":
        return { processingAt, finalAt, outcome: "cancelled", description: "Cancelled by the customer" }
      case undefined:
        return yield* ordinaryPlan(ctx, { processingAt, finalAt }, { failed: "Payment failed at the operator", completed: "Payment confirmed by the customer" })
    }
  })

const refused = (message: string) => envelopeB(422, message)

/** The body read and checked by `decode`: the pay-in to make, or the 422 answer (envelope B). */
const checkedBody = (decode: (body: JsonObject) => Either.Either<ValidPayin, FieldErrors>) =>
  Effect.map(jsonBody, (body) =>
    Either.isLeft(body)
      ? Either.left(refused("The request body must be a JSON object."))
      : Either.mapLeft(decode(body.right), (errors) => refused(errorMessage(errors))))

const mobileMoney = Effect.gen(function* () {
  const valid = yield* checkedBody(decodeMobilePayin)
  if (Either.isLeft(valid)) return valid.left
  const input = valid.right
  const ctx = yield* SandboxContext
  const now = yield* ctx.clock.now
  const plan = yield* mobilePlan(ctx, input.phone!, now)
  const fee = feeFor(ctx.settings.fees.payin, input.amount, input.currency)
  const txn = yield* Ref.modify(ctx.state, (state) => createPayin(state, { ...input, fee }, plan, now + MOBILE_MONEY_LIFETIME, now))
  const response = new MobileMoneyPayinResponse({
    error: false,
    reference: Reference.make(txn.reference),
    status: "success",
    message: `Payment request sent to ${input.phone}: the customer must confirm it on their phone (PIN or USSD prompt) within 15 minutes.`,
    currency: txn.currency
  })
  return ok(Schema.encodeSync(MobileMoneyPayinResponse)(response))
})

const card = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const valid = yield* checkedBody(decodeCardPayin)
  if (Either.isLeft(valid)) return valid.left
  const input = valid.right
  const ctx = yield* SandboxContext
  const now = yield* ctx.clock.now
  const expiresAt = now + CARD_CHECKOUT_LIFETIME
  const plan: Plan = { processingAt: expiresAt, finalAt: expiresAt, outcome: "expired", description: "The checkout page expired before payment" }
  const fee = feeFor(ctx.settings.fees.card, input.amount, input.currency)
  const txn = yield* Ref.modify(ctx.state, (state) => createPayin(state, { ...input, fee }, plan, expiresAt, now))
  const response = new CardPayinResponse({
    error: false,
    reference: Reference.make(txn.reference),
    payment_url: `http://${request.headers.host ?? "127.0.0.1"}/checkout/${txn.reference}`,
    status: "success",
    error_message: null,
    amount: input.amount,
    currency: txn.currency,
    expires_at: iso(expiresAt)
  })
  return ok(Schema.encodeSync(CardPayinResponse)(response))
})

export const payinRoutes = HttpRouter.empty.pipe(
  HttpRouter.post("/v1/payments/payin/mobile-money", mobileMoney),
  HttpRouter.post("/v1/payments/payin/card", card)
)
