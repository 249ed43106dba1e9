/**
 * POST /v1/payments/payout/mobile-money: validate, check the balance, reserve, plan the outcome.
 * With the `payout.commit_delay` fault the payout is created only after the hold, and created even
 * if the client has gone by then (the late commit runs in the sandbox's background, not the request).
 */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Fiber, Ref } from "effect"
import type { PayoutResponse } from "../../api/Schemas.ts"
import { toWire } from "../../domain/Money.ts"
import { iso } from "../Clock.ts"
import { SandboxContext } from "../Context.ts"
import { count } from "../FaultWorld.ts"
import { feeFor } from "../Fees.ts"
import { type Answer, answerA, answerOk, invalidAnswer, jsonOf, parseJsonObject, toResponse } from "../Http.ts"
import { faultOf } from "../FaultSettings.ts"
import { createPayout, type Insufficient } from "../Payouts.ts"
import { decodePayout, type ValidPayout } from "../RequestBody.ts"
import type { Plan, Txn } from "../State.ts"
import { payoutOutcomeOf } from "../TestNumbers.ts"
import { ordinaryPlan } from "./Ordinary.ts"

const planFor = (ctx: SandboxContext["Type"], phone: string, now: number): Effect.Effect<Plan> =>
  Effect.gen(function* () {
    const delay = Math.round(ctx.settings.payoutDelaySeconds * 1000)
    const processingAt = now + Math.floor(delay / 2)
    const finalAt = now + delay
    switch (payoutOutcomeOf(phone)) {
      case "success":
        return { processingAt, finalAt, outcome: "completed", description: "Payout completed successfully" }
      case "failure":
        return { processingAt, finalAt, outcome: "failed", description: "Recipient not found" }
      case "delayed": {
        const delayedAt = now + Math.round(ctx.settings.delayedPayoutSeconds * 1000)
        return { processingAt: delayedAt - Math.floor(delay / 2), finalAt: delayedAt, outcome: "completed", description: "Payout completed successfully" }
      }
      case "cancelled":
        return { processingAt, finalAt, outcome: "cancelled", description: "Payout cancelled" }
      case undefined:
        return yield* ordinaryPlan(ctx, { processingAt, finalAt }, { failed: "Transfer failed at the operator", completed: "Payout completed successfully" })
    }
  })

/** The body read and checked: the payout to make, or the 422 answer. */
export const payoutRequest = (text: string): Either.Either<ValidPayout, Answer> =>
  Either.flatMap(parseJsonObject(text), (body) => Either.mapLeft(decodePayout(body), invalidAnswer))

interface Committed {
  readonly plan: Plan
  readonly created: Either.Either<Txn, Insufficient>
}

/** Checks the balance and creates the payout now (one Ref.modify: atomic). */
const commit = (ctx: SandboxContext["Type"], payout: ValidPayout, now: number): Effect.Effect<Committed> =>
  Effect.flatMap(planFor(ctx, payout.phone, now), (plan) => {
    const fee = feeFor(ctx.settings.fees.payout, payout.amount, payout.currency)
    return Ref.modify(ctx.state, (state) => createPayout(state, { ...payout, fee }, plan, now)).pipe(
      Effect.tap((created) => (Either.isRight(created) ? ctx.payoutCommitted(created.right) : Effect.void)),
      Effect.map((created) => ({ plan, created }))
    )
  })

const committedAnswer = (payout: ValidPayout, { created, plan }: Committed): Answer => {
  if (Either.isLeft(created)) {
    const { available, required } = created.left
    const c = payout.currency
    return answerA(422, "Insufficient wallet balance", {
      amount: [`Insufficient ${c} wallet balance: available ${toWire(available, c)}, required ${toWire(required, c)} (amount + fee).`]
    })
  }
  const txn = created.right
  return answerOk(
    jsonOf<typeof PayoutResponse.Encoded>({
      reference: txn.reference,
      amount: toWire(txn.amount, txn.currency),
      currency: txn.currency,
      status: txn.status,
      operator: txn.operator ?? payout.operator,
      message: "Payout initiated successfully",
      phoneNumber: payout.phone,
      fee: toWire(txn.fee, txn.currency),
      estimated_delivery: iso(plan.finalAt)
    })
  )
}

/** The commit_delay hold for this POST in real milliseconds (seeded draw), or undefined. */
const holdFor = (ctx: SandboxContext["Type"]) =>
  Effect.gen(function* () {
    const { random, settings } = yield* Ref.get(ctx.faults)
    const delay = faultOf(settings, "payout", "commit_delay")
    if (delay === undefined) return undefined
    const rate = faultOf(settings, "payout", "commit_delay_rate") ?? 1
    if (rate <= 0 || (rate < 1 && (yield* random.next) >= rate)) return undefined
    yield* count(ctx.faults, "payout.commit_delay")
    return delay.max === delay.min ? delay.min : Math.round(delay.min + (yield* random.next) * (delay.max - delay.min))
  })

export const payoutRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/v1/payments/payout/mobile-money",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const valid = payoutRequest(yield* Effect.orElseSucceed(request.text, () => ""))
      if (Either.isLeft(valid)) return toResponse(valid.left)
      const payout = valid.right
      const ctx = yield* SandboxContext
      const hold = yield* holdFor(ctx)
      const commitNow = Effect.flatMap(ctx.clock.now, (now) => commit(ctx, payout, now))
      // A held commit runs to completion on its own fiber (and saves itself): the client may
      // time out or disconnect meanwhile, which interrupts only this request's wait.
      const committed =
        hold === undefined
          ? yield* commitNow
          : yield* Fiber.join(
            yield* ctx.background(
              Effect.sleep(hold).pipe(Effect.zipRight(Effect.uninterruptible(Effect.tap(commitNow, () => ctx.persist))))
            )
          )
      return toResponse(committedAnswer(payout, committed))
    })
  )
)
