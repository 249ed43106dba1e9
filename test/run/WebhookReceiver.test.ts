/**
 * The webhook receiver cannot be crashed or slowed from outside (issue 12.4): a body over 64 KiB is
 * refused by its header and while streaming (a real oversized body over a real socket), and the
 * receiver still serves the next caller.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Queue } from "effect"
import { request } from "node:http"
import { MAX_BODY, referenceOf, startWebhookReceiver } from "../../src/run/WebhookReceiver.ts"

const post = (url: string, chunks: ReadonlyArray<Buffer>, headers: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<number>((ok) => {
        const req = request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (res) => {
          res.resume()
          res.on("end", () => ok(res.statusCode ?? 0))
        })
        req.on("error", () => ok(-1))
        for (const c of chunks) req.write(c)
        req.end()
      })
  )

describe("webhook receiver", () => {
  it.scopedLive("refuses bodies over 64 KiB by header and while streaming, and keeps serving", () =>
    Effect.gen(function* () {
      const seen = yield* Queue.unbounded<string>()
      const { url } = yield* startWebhookReceiver({ host: "127.0.0.1", port: 0 }, seen)
      // 8 MiB streamed in chunks without a length: cut at the cap, never held whole (the client sees
      // the 413, or the connection closed under its writes).
      const chunk = Buffer.alloc(256 * 1024, 0x61)
      expect(yield* post(url, Array.from({ length: 32 }, () => chunk))).toBeOneOf([413, -1])
      // A declared length over the cap: refused before reading.
      expect(yield* post(url, [Buffer.from("{}")], { "content-length": String(MAX_BODY + 1) })).toBeOneOf([413, -1])
      // The next, well-formed webhook is served.
      const ok = yield* post(url, [Buffer.from(JSON.stringify({ event: "payout.completed", data: { reference: "TXN1" } }))])
      expect(ok).toBe(200)
      expect(yield* Queue.take(seen)).toBe("TXN1")
    })
  )

  it.scopedLive("names nothing for a body without data.reference or another path, and stops listening when the run ends", () =>
    Effect.gen(function* () {
      const seen = yield* Queue.unbounded<string>()
      const url = yield* startWebhookReceiver({ host: "127.0.0.1", port: 0 }, seen).pipe(
        Effect.flatMap(({ url }) =>
          Effect.gen(function* () {
            expect(yield* post(url, [Buffer.from("not json")])).toBe(400)
            expect(yield* post(url, [Buffer.from(JSON.stringify({ data: { ref: "TXN2" } }))])).toBe(400)
            expect(yield* post(url.replace("/webhooks", "/other"), [Buffer.from(JSON.stringify({ data: { reference: "TXN3" } }))])).toBe(404)
            expect(yield* Queue.size(seen)).toBe(0)
            return url
          })
        ),
        Effect.scoped
      )
      // The scope (the run) is over: the port no longer answers.
      expect(yield* post(url, [Buffer.from(JSON.stringify({ data: { reference: "TXN4" } }))])).toBe(-1)
    })
  )
})

describe("the reference a webhook names", () => {
  it("is data.reference of a JSON body, at most 200 characters; anything else names none", () => {
    expect(referenceOf(JSON.stringify({ event: "payout.completed", data: { reference: "TXN1", status: "SUCCESSFUL" } }))).toStrictEqual(Option.some("TXN1"))
    expect(referenceOf(JSON.stringify({ data: { reference: "R".repeat(200) } }))).toStrictEqual(Option.some("R".repeat(200)))
    for (const text of [
      JSON.stringify({ data: { reference: "R".repeat(201) } }),
      JSON.stringify({ data: { reference: 42 } }),
      JSON.stringify({ reference: "TXN1" }),
      '{"data":{"reference":"A"}',
      "",
      "null",
      "[]",
      '{"data":["A"]}',
      '{"__proto__":{"data":{"reference":"A"}}}',
      '{"data":{"__proto__":{"reference":"A"}}}'
    ]) expect(referenceOf(text), text).toStrictEqual(Option.none())
  })
})
