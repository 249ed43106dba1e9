/**
 * The real CLI (`node bin/payouts.js`) as a child process against a sandbox on an ephemeral port.
 * Each spawn costs about a second (tsx), so the cases share one sandbox and few spawns.
 */
import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Stream, String as Str } from "effect"
import { fileURLToPath } from "node:url"
import { startSandbox } from "../../src/sandbox/Sandbox.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const KEY = "cli-test-key"
const SECRET = "cli-test-secret-0xDEADBEEF"

class TestSandbox extends Context.Tag("test/TestSandbox")<TestSandbox, { readonly baseUrl: string; readonly origin: string }>() {}

const SandboxLive = Layer.scoped(
  TestSandbox,
  startSandbox({ port: 0, host: "127.0.0.1", fund: { XAF: 2_000_000, XOF: 750_000 }, key: KEY, secret: SECRET })
).pipe(Layer.merge(NodeContext.layer))

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs the CLI with exactly these PAYOUTS_* settings (an empty value counts as unset). */
const cli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.gen(function* () {
    const blank = { PAYOUTS_BASE_URL: "", PAYOUTS_API_KEY: "", PAYOUTS_API_SECRET: "", NO_COLOR: "1" }
    const command = Process.make("node", "bin/payouts.js", ...args).pipe(
      Process.workingDirectory(ROOT),
      Process.env({ ...blank, ...env })
    )
    const proc = yield* Process.start(command)
    const [stdout, stderr, code] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], {
      concurrency: "unbounded"
    })
    return { code: Number(code), stdout, stderr } satisfies Run
  }).pipe(Effect.scoped)

const settings = (baseUrl: string) => ({ PAYOUTS_BASE_URL: baseUrl, PAYOUTS_API_KEY: KEY, PAYOUTS_API_SECRET: SECRET })

const api = (origin: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  Effect.promise(() =>
    fetch(`${origin}${path}`, {
      method: init.method ?? "GET",
      headers: { "X-API-Key": KEY, "X-API-Secret": SECRET, Accept: "application/json", "Content-Type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body)
    }).then(async (response) => ({ status: response.status, json: await response.json() }))
  )

/** One payout to the CM success number, sent with plain fetch as any other client would. */
const payOnce = (origin: string) =>
  Effect.gen(function* () {
    const data = yield* api(origin, "/__sandbox/test-data")
    const phone: string = data.json.payout.CM.success
    const payout = yield* api(origin, "/v1/payments/payout/mobile-money", {
      method: "POST",
      body: {
        amount: 12500,
        currency: "XAF",
        phoneNumber: phone,
        operator: "carrier1_cm",
        return_url: "https://merchant.example/return",
        cancel_url: "https://merchant.example/cancel",
        callback_url: "http://127.0.0.1:9/webhooks",
        description: "[clitest01] settlement for seller 42",
        customer: { name: "Awa Seller", phone, email: "awa@example.com" }
      }
    })
    expect(payout.json.reference, JSON.stringify(payout.json)).toMatch(/^TXN/)
    return { reference: payout.json.reference as string, phone }
  })

// excludeTestServices: `it.effect` in these layers runs on the live clock (sockets, child processes).
describe("payouts CLI", () => {
  layer(SandboxLive, { excludeTestServices: true })("against a sandbox", (it) => {
    it.effect("wallet: the funded wallets as a table and as JSON", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestSandbox
        const table = yield* cli(["wallet"], settings(baseUrl))
        expect(table.code, table.stderr).toBe(0)
        const lines = Str.linesIterator(table.stdout)
        const rows = [...lines].filter((line) => /^(XAF|XOF)\s/.test(line))
        expect(rows).toHaveLength(2)
        expect(table.stdout).toMatch(/CURRENCY\s+AVAILABLE\s+BALANCE/)
        expect(table.stdout).toMatch(/XAF\s+2,000,000\s+2,000,000\s+0\s+0\s+wal_/)
        expect(table.stdout).toMatch(/XOF\s+750,000\s+750,000/)

        const json = yield* cli(["wallet", "--json"], settings(baseUrl))
        expect(json.code, json.stderr).toBe(0)
        const parsed = JSON.parse(json.stdout)
        const xaf = parsed.wallets.find((w: { currency: string }) => w.currency === "XAF")
        expect(xaf).toMatchObject({ balance: 2_000_000, available_balance: 2_000_000, reserved_balance: 0 })
      }))

    it.effect("a payout made with fetch shows in transactions, status and summary", () =>
      Effect.gen(function* () {
        const { baseUrl, origin } = yield* TestSandbox
        const { reference, phone } = yield* payOnce(origin)

        const list = yield* cli(["transactions", "--type", "payout", "--currency", "xaf", "--wide"], settings(baseUrl))
        expect(list.code, list.stderr).toBe(0)
        const line = [...Str.linesIterator(list.stdout)].find((l) => l.includes(reference))
        expect(line, list.stdout).toBeDefined()
        expect(line).toMatch(/payout\s+(pending|processing|completed)\s+XAF\s+12,500\s+125\s+12,625/)
        expect(list.stdout).toContain("[clitest01] settlement")
        expect(list.stdout).toMatch(/Page 1 of 1: 1 shown, 1 in all\./)

        const all = yield* cli(["transactions", "--all", "--json", "--limit", "1"], settings(baseUrl))
        expect(all.code, all.stderr).toBe(0)
        const every = JSON.parse(all.stdout).transactions as Array<{ reference: string; type: string }>
        expect(every.map((t) => t.reference)).toContain(reference)
        expect(every.filter((t) => t.type === "adjustment").length).toBeGreaterThanOrEqual(2)

        const status = yield* cli(["status", reference], settings(baseUrl))
        expect(status.code, status.stderr).toBe(0)
        expect(status.stdout).toMatch(new RegExp(`Reference:\\s+${reference}`))
        expect(status.stdout).toMatch(/Amount:\s+12,500 XAF/)
        expect(status.stdout).toContain("Awa Seller")
        expect(status.stdout).not.toContain(phone)
        expect(status.stdout).toContain(`${phone.slice(0, 4)}`)

        // The summary counts completed payouts: let sandbox time run past the payout's delay.
        yield* api(origin, "/__sandbox/clock/advance", { method: "POST", body: { seconds: 60 } })
        const summary = yield* cli(["summary", "--json"], settings(baseUrl))
        expect(summary.code, summary.stderr).toBe(0)
        const data = JSON.parse(summary.stdout)
        expect(data.total_balance_summary.map((b: { currency: string }) => b.currency)).toEqual(
          expect.arrayContaining(["XAF", "XOF"])
        )
        expect(data.transaction_summary.last_30_days.total_payout_count).toBeGreaterThanOrEqual(1)
      }))

    it.effect("summary as a table", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestSandbox
        const run = yield* cli(["summary"], settings(baseUrl))
        expect(run.code, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/CURRENCY\s+TOTAL\s+AVAILABLE\s+PENDING\s+RESERVED/)
        expect(run.stdout).toMatch(/^XOF\s+750,000\s+750,000\s+0\s+0$/m)
        expect(run.stdout).toMatch(/Payouts:\s+\d+/)
      }))

    it.effect("status of an unknown reference: not found, exit 1", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestSandbox
        const run = yield* cli(["status", "TXNUNKNOWN123"], settings(baseUrl))
        expect(run.code).toBe(1)
        expect(run.stderr.trim()).toBe("payouts: not found: no transaction has the reference TXNUNKNOWN123")
        expect(run.stdout).toBe("")
      }))

    it.effect("bad credentials: a clear message, exit 2, the wrong secret never echoed", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestSandbox
        const wrong = "wrong-secret-s3cr3t-XYZ"
        const run = yield* cli(["wallet", "--api-secret", wrong], settings(baseUrl))
        expect(run.code).toBe(2)
        expect(run.stderr.trim()).toBe(
          "payouts: the service refused the credentials (401: Invalid credentials). Check the API key from environment PAYOUTS_API_KEY and the secret from flag --api-secret, and that they belong to this service (base URL from environment PAYOUTS_BASE_URL). payouts config shows each setting and where it comes from."
        )
        expect(run.stdout + run.stderr).not.toContain(wrong)
        expect(run.stdout + run.stderr).not.toContain(SECRET)
      }))
  })

  layer(NodeContext.layer, { excludeTestServices: true })("without a service", (it) => {
    it.effect("a missing PAYOUTS_BASE_URL names the variable and the flag, exit 2", () =>
      Effect.gen(function* () {
        const run = yield* cli(["transactions"], { PAYOUTS_API_KEY: KEY, PAYOUTS_API_SECRET: SECRET })
        expect(run.code).toBe(2)
        expect(run.stderr.trim()).toBe("payouts: Missing setting: set PAYOUTS_BASE_URL or pass --base-url")
      }))

    it.effect("payouts sandbox serves the API it prints, until stopped", () =>
      Effect.gen(function* () {
        const command = Process.make(
          "node", "bin/payouts.js", "sandbox", "--port", "0", "--fund", "XAF=5000", "--key", "k-child", "--secret", "s-child"
        ).pipe(Process.workingDirectory(ROOT))
        const proc = yield* Process.start(command)
        const banner = yield* proc.stdout.pipe(
          Stream.decodeText(),
          Stream.splitLines,
          Stream.takeUntil((line) => line.includes("export PAYOUTS_BASE_URL=")),
          Stream.runCollect,
          Effect.map((lines) => [...lines].join("\n")),
          Effect.timeout("30 seconds")
        )
        const baseUrl = /export PAYOUTS_BASE_URL=(\S+)/.exec(banner)?.[1] ?? ""
        expect(baseUrl, banner).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
        expect(banner).toContain("PAYOUTS_API_KEY=k-child PAYOUTS_API_SECRET=s-child")
        const response = yield* Effect.promise(() =>
          fetch(`${baseUrl}/wallet`, { headers: { "X-API-Key": "k-child", "X-API-Secret": "s-child", Accept: "application/json" } })
        )
        const body = yield* Effect.promise(() => response.json())
        expect(body.wallets).toEqual(expect.arrayContaining([expect.objectContaining({ currency: "XAF", balance: 5000 })]))
        yield* proc.kill("SIGTERM")
        expect(Number(yield* proc.exitCode)).toBe(0)
      }).pipe(Effect.scoped))
  })
})
