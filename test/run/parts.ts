/**
 * Test layers for a run's parts: a fake PaymentClient (the boundary; every call it is not given dies)
 * and the real per-run services over a real store, as the Runner builds them for one run.
 */
import { type Context, type Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { PaymentClient } from "../../src/api/Client.ts"
import type { PaymentClientApi } from "../../src/api/ClientApi.ts"
import type { AccountId, BatchId } from "../../src/domain/Ids.ts"
import type { RunSettings } from "../../src/run/RunContext.ts"
import { runLayer } from "../../src/run/Runner.ts"
import type { Fence } from "../../src/store/Model.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import type { StoreServices } from "../../src/store/Sql/Store.ts"
import { handlesOf } from "../kit/Store.ts"
import { tempDbPath } from "../store/fixtures.ts"

const unused = (name: string) => () => Effect.die(`${name}: not in this test`)

/** A PaymentClient answering with `api`; every other call dies, and the service's clock agrees with ours unless told. */
export const fakeClient = (api: Partial<PaymentClientApi>) =>
  Layer.succeed(
    PaymentClient,
    PaymentClient.make({
      payout: unused("payout"),
      wallets: unused("wallets"),
      transactions: unused("transactions"),
      transactionStream: unused("transactionStream"),
      summary: unused("summary"),
      status: unused("status"),
      payinMobileMoney: unused("payinMobileMoney"),
      payinCard: unused("payinCard"),
      serverSkew: Effect.succeed(Option.none()),
      scrub: (text) => text,
      ...api
    })
  )

/**
 * A store on a temp file (as fixtures' scopedStore opens it), closed with the test's scope: the port
 * for the test's own setup and looks, and every service of the same layer for the run's parts.
 */
export const scopedServices = Effect.gen(function* () {
  const services = yield* Layer.build(SqliteStateStore.layer({ filename: yield* tempDbPath, busyTimeout: "20 millis" }))
  return { store: handlesOf(services), services }
})

export interface RunOf {
  readonly services: Context.Context<StoreServices>
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly settings: RunSettings
  readonly fence: Fence
}

/** One run's services (the Runner's own per-run layer) over the store's `services` and the fake `client`. */
export const runParts = (run: RunOf, client: Layer.Layer<PaymentClient>) =>
  runLayer({ accountId: run.accountId, batchId: run.batchId, settings: run.settings, fence: run.fence }).pipe(
    Layer.provide(Layer.merge(client, Layer.succeedContext(run.services)))
  )

/** Runs `effect` to its end, moving the TestClock by `step` (a second unless told) while it waits on it. */
export const drive = <A, E, R>(effect: Effect.Effect<A, E, R>, step: Duration.DurationInput = "1 second") =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    while (Option.isNone(yield* Fiber.poll(fiber))) yield* TestClock.adjust(step)
    return yield* Fiber.join(fiber)
  })
