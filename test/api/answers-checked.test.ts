/**
 * Every answer of the service checked before it is believed or stored (issue 30, item 5), through the
 * real binary against the sandbox's hostile faults: an absurd or negative fee and another reference's
 * record put the row under alarm (exit 5) with the value shown, and `payouts ledger` still writes the
 * ledger; a huge `GET /wallet` is refused with the reading stopped early; a listing claiming a million
 * payouts is not read for ever, said once, and the rows are paid.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Schema } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { PaymentClient } from "../../src/api/Client.ts"
import { checkPayoutAnswer, checkStatusRecord } from "../../src/api/Plausible.ts"
import { PayoutResponse, StatusResponse } from "../../src/api/Schemas.ts"
import { BatchId, MinorUnits, Reference } from "../../src/domain/Ids.ts"
import { ACCOUNT, newBatch, rowInputs, scopedStore } from "../store/fixtures.ts"
import { cli, FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import * as F from "./support/fixtures.ts"
import { scriptedServer } from "./support/ScriptedServer.ts"

const OURS = { reference: "TXN1", amountMinor: 5000, currency: "XAF" }
const record = (data: Record<string, unknown>) => ({ success: true, data: { ...F.statusRecord, reference: "TXN1", amount: 5000, currency: "XAF", fee: 50, ...data } })
const decodeStatus = Schema.decodeUnknownOption(StatusResponse)
/** The anomaly of a status answer, as the client decodes it. */
const verdict = (json: unknown) => Option.map(decodeStatus(json), (r) => checkStatusRecord(r.data, OURS, (t) => t))

describe("the checks of an answer against our row (api/Plausible.ts)", () => {
  it("takes a plausible fee, refuses absurd, negative, non-finite and foreign ones", () => {
    expect(verdict(record({}))).toEqual(Option.some(Either.right(50)))
    const refused: ReadonlyArray<[unknown, RegExp]> = [
      [record({ fee: 1e300 }), /fee 1e\+300 XAF is beyond any payout/],
      [JSON.parse(`{"success":true,"data":${JSON.stringify(record({}).data).replace(`"fee":50`, `"fee":1e400`)}}`), /fee Infinity is not a finite number/],
      [record({ fee: "NaN" }), /fee NaN is not a finite number/],
      [record({ fee: -1 }), /fee -1 XAF is negative/],
      [record({ fee: 6000 }), /fee 6000 XAF is above the payout's amount and above 1000 XAF/],
      [record({ reference: "TXN2", amount: 5_000_000 }), /the record of another reference "TXN2" for TXN1/],
      [record({ amount: 5001 }), /amount 5001 XAF for a payout of another amount/],
      [record({ currency: "XOF" }), /currency "XOF" for a payout in XAF/]
    ]
    for (const [json, why] of refused) {
      const judged = Option.getOrThrow(verdict(json))
      expect(Either.isLeft(judged)).toBe(true)
      expect(Either.getLeft(judged).pipe(Option.getOrElse(() => ""))).toMatch(why)
    }
    // A flat minimum above a small amount is a fee a payout can have.
    expect(checkStatusRecord(Option.getOrThrow(decodeStatus(record({ amount: 10, fee: 50 }))).data, { ...OURS, amountMinor: 10 }, (t) => t)).toEqual(Either.right(50))
  })

  it("the POST's answer: its fee and amount held to the row; its reference is the service's", () => {
    const answer = (extra: Record<string, unknown>) => Schema.decodeUnknownSync(PayoutResponse)({ reference: "TXN9", status: "pending", ...extra })
    expect(checkPayoutAnswer(answer({ fee: 50, amount: 5000, currency: "XAF" }), OURS, (t) => t)).toEqual(Either.right(50))
    expect(checkPayoutAnswer(answer({}), OURS, (t) => t)).toEqual(Either.right(undefined))
    expect(Either.isLeft(checkPayoutAnswer(answer({ fee: 1e300 }), OURS, (t) => t))).toBe(true)
    expect(Either.isLeft(checkPayoutAnswer(answer({ amount: 5_000_000 }), OURS, (t) => t))).toBe(true)
  })

  it("a quoted value is scrubbed, shown visible and cut", () => {
    const verdict = checkStatusRecord(Option.getOrThrow(decodeStatus(record({ reference: `sk_live_SECRET\u001b[31m${"x".repeat(100)}` }))).data, OURS, (t) => t.replace("SECRET", "[redacted]"))
    const why = Either.getLeft(verdict).pipe(Option.getOrElse(() => ""))
    expect(why).not.toContain("SECRET")
    expect(why).toContain("[redacted]\\u001b[31m")
    expect(why).toContain("...")
  })
})

describe("the store's write path holds to its read path's schema", () => {
  it.scoped("a fee the row's schema cannot read back is refused, nothing written", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStore
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      const batch = store.batch(ACCOUNT, BatchId.make("b1"))
      const fence = Option.getOrThrow(yield* batch.acquireLease("runner", "1 hour"))
      yield* batch.claimRows({ limit: 1, fence })
      const absurd = MinorUnits.make(1e302, { disableValidation: true })
      const refused = yield* Effect.flip(batch.recordTransition({ idx: 0, to: "pending", reference: Reference.make("TXN1"), feeMinor: absurd, source: "poll" }, fence))
      expect(refused.message).toContain("fee_minor 1e+302 could not be read back; not stored")
      const row = Option.getOrThrow(yield* batch.getRow(0))
      expect(row.state).toBe("submitting")
      expect(row.feeMinor).toBeNull()
    }))
})

const clientOver = (baseUrl: string) =>
  PaymentClient.layer({ baseUrl, apiKey: "key-1234", apiSecret: "secret-1234", requestTimeout: "5 seconds", getRetry: { base: "10 millis", times: 1 }, minRate: 50 })

describe("bodies capped", () => {
  const pad = (bytes: number) => "x".repeat(bytes)
  it.scopedLive("a record declared longer than 256 KiB is refused unread (a GET: unexpected; the POST: outcome unknown); a listing page up to 8 MiB is read", () =>
    Effect.gen(function* () {
      const long = JSON.stringify({ ...F.statusBody, message: pad(300 * 1024) })
      const page = JSON.stringify({ ...F.transactionsBody, message: pad(300 * 1024) })
      const server = yield* scriptedServer((req) => {
        const body = req.url.includes("/wallet/transactions") ? page : long
        return { status: 200, text: body, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } }
      })
      yield* Effect.gen(function* () {
        const client = yield* PaymentClient
        const status = yield* Effect.flip(client.status("TXN1"))
        expect(status.message).toBe(`unexpected response (HTTP 200): answer longer than 256 KiB (${Buffer.byteLength(long)} bytes declared): not read`)
        const sent = yield* Effect.flip(client.payout(F.payoutRequest))
        expect(sent._tag).toBe("OutcomeUnknown")
        expect(sent.message).toContain("answer longer than 256 KiB")
        const listed = yield* client.transactions({})
        expect(listed.transactions.length).toBe(F.transactionsBody.data.transactions.length)
      }).pipe(Effect.provide(clientOver(server.baseUrl)))
    }))

  it.scopedLive("a wallet balance no wallet can hold is refused, not believed by the balance check", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer(() => ({ status: 200, json: { wallets: [{ ...F.wallet, available_balance: 1e300 }] } }))
      const error = yield* Effect.flip(Effect.flatMap(PaymentClient, (client) => client.wallets()).pipe(Effect.provide(clientOver(server.baseUrl))))
      expect(error.message).toBe("unexpected response (HTTP 200): wallet XAF: available_balance 1e+300 XAF is not an amount of minor units")
    }))
})

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(3000 + i), phone: ordinaryPhone(300 + i) }))

const counters = (sandbox: Effect.Effect.Success<ReturnType<typeof startSandbox>>) =>
  Effect.promise(async () => {
    const response = await fetch(`${sandbox.origin}/__sandbox/faults`, { headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret } })
    return ((await response.json()) as { counters: Record<string, number> }).counters
  })

/** A run against `faults` that must end under alarm, then `payouts ledger` of its batch. */
const alarmThenLedger = (faults: string, shown: RegExp) =>
  Effect.gen(function* () {
    const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults })
    const dir = tempDir("payouts-answers-")
    const state = join(dir, "state.db")
    const file = writeCsv(dir, "lies.csv", sellers(2, "L"))
    const run = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
    expect(run.code, run.stderr).toBe(5)
    expect(run.stderr).toMatch(shown)
    expect(run.stderr).toContain("ALARM line 2: anomaly:")
    const summary = JSON.parse(run.stdout)
    expect(summary.alarms.length).toBe(2)
    expect(summary.alarms[0].reason).toMatch(shown)
    // Never a completed payout on the strength of such an answer.
    expect(summary.counts.completed ?? 0).toBe(0)
    const out = join(dir, "again")
    const ledger = yield* cli(sandbox, state, ["ledger", String(summary.batch_id), "--out", out])
    expect(ledger.code, ledger.stderr).not.toBe(4)
    expect(ledger.stderr).not.toContain("ParseError")
    expect(existsSync(join(out, "lies.ledger.csv"))).toBe(true)
    const rows = readFileSync(join(out, "lies.ledger.csv"), "utf8").trim().split("\n")
    expect(rows.length).toBe(3)
    // The run again: the rows stay under alarm, nothing read back fails.
    const again = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
    expect(again.code, again.stderr).toBe(5)
    expect(again.stderr).not.toContain("internal error")
    expect((yield* admin(sandbox).invariants).ok).toBe(true)
    return sandbox
  })

describe("answers checked before they are believed or stored (the binary)", () => {
  it.scopedLive("a status fee of 1e300 is an alarm with the value shown; the ledger is still written", () =>
    alarmThenLedger("status.fee_absurd=1,seed=3", /fee 1e\+300 XAF is beyond any payout/), { timeout: 120_000 })

  it.scopedLive("a negative status fee is an alarm with the value shown; the ledger is still written", () =>
    alarmThenLedger("status.fee_negative=1,seed=3", /fee -50 XAF is negative/), { timeout: 120_000 })

  it.scopedLive("another reference's record, 1000x the amount, is not taken as completed: an alarm", () =>
    alarmThenLedger("status.foreign_ref=1,seed=3", /the record of another reference "[^"]+" for /), { timeout: 120_000 })

  it.scopedLive("a 200 MiB answer to GET /wallet is refused as a service fault, read no further than its cap", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, faults: "wallet.huge_body=200m" })
      const dir = tempDir("payouts-answers-")
      const wallet = yield* cli(sandbox, join(dir, "state.db"), ["wallet"])
      expect(wallet.code, wallet.stderr).not.toBe(0)
      expect(wallet.stderr).toContain("answer longer than 256 KiB")
      // The client dropped the connection at its cap: the sandbox wrote a small part of the 200 MiB.
      const sent = (yield* counters(sandbox))["wallet.huge_body_bytes"] ?? 0
      expect(sent).toBeGreaterThan(0)
      expect(sent).toBeLessThan(40 * 1024 * 1024)
    }), { timeout: 120_000 })

  it.scopedLive("a listing claiming a million payouts: the rows are paid, the day said once as incomplete, few pages read", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "transactions.total_lie=1000000" })
      const dir = tempDir("payouts-answers-")
      const file = writeCsv(dir, "claims.csv", sellers(3, "T"))
      const began = Date.now()
      const run = yield* cli(sandbox, join(dir, "state.db"), ["run", file, ...FAST, "--json"])
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout).counts).toEqual({ completed: 3 })
      const said = run.stderr.split("\n").filter((line) => /listing of \d{4}-\d{2}-\d{2} not complete/.test(line))
      expect(said.length, run.stderr).toBe(1)
      expect(said[0]).toMatch(/claims 1000000 payouts in 10000 pages, more than 200 pages of 100 can hold; 1 page\(s\) read, \d+ payouts/)
      // The pre-scan's 91 days at one page each (and one read of the span), not thousands.
      const pages = (yield* counters(sandbox))["transactions.requests"] ?? 0
      expect(pages).toBeLessThan(200)
      expect(Date.now() - began).toBeLessThan(60_000)
    }), { timeout: 120_000 })
})
