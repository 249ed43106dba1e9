/**
 * The orchestrator's hot path taken apart: the CPU of this process per call of each piece a payout
 * goes through (the payout POST and the status GET through our client, a plain undici request to the
 * same endpoint as the bound), at concurrency 32 against a sandbox in its own process. A profile of a
 * whole run shows only the Effect runtime; this says which of our calls its time belongs to.
 * `npx tsx scripts/bench/hotpath.ts [--n 3000] [--client]` (--client: only our client's calls and their plain bound,
 * in rounds; copy this file into another checkout to compare its client in the same session)
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Layer, Queue, Redacted } from "effect"
// undici through @effect/platform-node, which depends on it (the product does not name it directly).
import { request } from "@effect/platform-node/Undici"
import { NodeHttpClient } from "@effect/platform-node"
import { PaymentClient } from "../../src/api/Client.ts"
import { Customer, PayoutRequest } from "../../src/api/Schemas.ts"
import { clientLayer } from "../../src/cli/Connect.ts"
import { spawnSandbox } from "./sandbox.ts"
import { freePort } from "./measure.ts"
import { startWebhookReceiver } from "../../src/run/WebhookReceiver.ts"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

const at = process.argv.indexOf("--n")
const n = at === -1 ? 3000 : Number(process.argv[at + 1])
const CONCURRENCY = 32
const clientOnly = process.argv.includes("--client")
const rounds = clientOnly ? 4 : 2

/** CPU of this process per item (ms), running `one(i)` for i < n at concurrency 32. */
const cpuPer = async (label: string, one: (i: number) => Promise<unknown>) => {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await one(next++)
  }))
  const c = process.cpuUsage(c0)
  const wall = performance.now() - t0
  console.log(`${label.padEnd(44)} ${(((c.user + c.system) / 1e3) / n).toFixed(3)} ms CPU/call  ${((n * 1e3) / wall).toFixed(0)} calls/s`)
}

const sandbox = await spawnSandbox({ fund: { XAF: 100_000_000_000 }, payoutDelaySeconds: 0.01, webhookRetryMillis: 200 })
try {
  const connection = { baseUrl: sandbox.baseUrl, apiKey: Redacted.make(sandbox.key), apiSecret: Redacted.make(sandbox.secret) }
  const headers = { accept: "application/json", "content-type": "application/json", "x-api-key": sandbox.key, "x-api-secret": sandbox.secret }
  const body = (i: number, tag: string) => new PayoutRequest({
    amount: 1000, currency: "XAF", operator: "carrier1_cm", phoneNumber: "+237671234567", return_url: "https://example.com/r", cancel_url: "https://example.com/c",
    callback_url: sandbox.sinkUrl, description: `Settlement ${tag} ${i}`, customer: new Customer({ name: "Seller Example", phone: "+237671234567", email: "s@example.com" }),
    payout_details: { token: `${tag}-${i}-${Date.now()}` }
  })
  const references: Array<string> = []
  const program = Effect.gen(function* () {
    const client = yield* PaymentClient
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)
    for (let round = 0; round < rounds; round++) {
      // The first round warms the JIT; the second is the figure.
      const label = round === 0 ? "(warm-up) " : ""
      references.length = 0
      yield* Effect.promise(() => cpuPer(`${label}plain undici POST payout`, async (i) => {
        const r = await request(`${sandbox.baseUrl}/payments/payout/mobile-money`, { method: "POST", headers, body: JSON.stringify(body(i, "plain")) })
        const json = (await r.body.json()) as { reference?: string }
        if (json.reference !== undefined) references.push(json.reference)
        else if (i === 0) console.log(r.statusCode, JSON.stringify(json).slice(0, 300))
      }))
      yield* Effect.promise(() => cpuPer(`${label}plain undici GET status`, async (i) => {
        const r = await request(`${sandbox.baseUrl}/payment/status/${references[i % references.length]}`, { headers })
        await r.body.json()
      }))
      if (clientOnly) {
        yield* Effect.promise(() => cpuPer(`${label}PaymentClient.payout`, (i) => run(client.payout(body(i, "client")))))
        yield* Effect.promise(() => cpuPer(`${label}PaymentClient.status`, (i) => run(client.status(references[i % references.length]))))
        continue
      }
      const http = yield* HttpClient.HttpClient
      const get = (i: number) => HttpClientRequest.get(`${sandbox.baseUrl}/payment/status/${references[i % references.length]}`).pipe(HttpClientRequest.setHeaders(headers))
      yield* Effect.promise(() => cpuPer(`${label}HttpClient.execute GET status + text`, (i) => run(Effect.flatMap(http.execute(get(i)), (r) => r.text))))
      yield* Effect.promise(() => cpuPer(`${label}  + timeoutFail`, (i) => run(Effect.flatMap(http.execute(get(i)), (r) => r.text).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "timeout" })))))
      const bare = http.pipe(HttpClient.withTracerDisabledWhen(() => true), HttpClient.withTracerPropagation(false))
      yield* Effect.promise(() => cpuPer(`${label}  tracer disabled, no propagation`, (i) => run(Effect.flatMap(bare.execute(get(i)), (r) => r.text))))
      yield* Effect.promise(() => cpuPer(`${label}Effect.promise(undici GET status)`, (i) => run(Effect.promise(async () => {
        const r = await request(`${sandbox.baseUrl}/payment/status/${references[i % references.length]}`, { headers })
        return r.body.text()
      }))))
      // Webhooks: sender and receiver both in this process; a plain node:http receiver is the bound.
      const hook = (i: number) => JSON.stringify({ event: "payout.completed", data: { reference: references[i % references.length], status: "success" } })
      const plainServer = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          JSON.parse(Buffer.concat(chunks).toString("utf8"))
          res.end("ok")
        })
      })
      yield* Effect.promise(() => new Promise<void>((r) => plainServer.listen(0, "127.0.0.1", () => r())))
      const plainPort = (plainServer.address() as AddressInfo).port
      const post = (port: number, i: number) => request(`http://127.0.0.1:${port}/webhooks`, { method: "POST", headers: { "content-type": "application/json" }, body: hook(i) }).then((r) => r.body.text())
      yield* Effect.promise(() => cpuPer(`${label}webhook to a plain node:http receiver`, (i) => post(plainPort, i)))
      plainServer.close()
      const hookPort = yield* Effect.promise(() => freePort())
      const woken = yield* Queue.unbounded<string>()
      yield* startWebhookReceiver({ host: "127.0.0.1", port: hookPort }, woken)
      yield* Effect.sleep("200 millis")
      yield* Effect.promise(() => cpuPer(`${label}webhook to startWebhookReceiver`, (i) => post(hookPort, i)))
      yield* Effect.promise(() => cpuPer(`${label}PaymentClient.payout`, (i) =>
        run(client.payout(body(i, "client")))))
      yield* Effect.promise(() => cpuPer(`${label}PaymentClient.status`, (i) => run(client.status(references[i % references.length]))))
    }
  })
  await Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(Layer.merge(clientLayer(connection, {}), NodeHttpClient.layerUndici))))
} finally {
  await sandbox.stop()
}
