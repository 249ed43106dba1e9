/** Harness for end-to-end runs: a real sandbox on an ephemeral port, a real SQLite file, the real client. */
import { NodeContext } from "@effect/platform-node"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serviceAccountId } from "../../src/api/ClientConfig.ts"
import { clientLayer } from "../../src/cli/Connect.ts"
import { type Token, tokenOfDescription } from "../../src/domain/Token.ts"
import { DEFAULT_RUN_SETTINGS, type RunSettings } from "../../src/run/RunContext.ts"
import { DEFAULT_CALLBACK_URL } from "../../src/run/PayoutBody.ts"
import { type RunRequest, runBatch } from "../../src/run/Runner.ts"
import { launchSandbox, type SandboxOptions } from "../../src/sandbox/Sandbox.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { StateStore, type StateStoreShape } from "../../src/store/StateStore.ts"
import { stderrNotices } from "../../src/cli/Notices.ts"
import { Notices } from "../../src/run/Notices.ts"

export const tempDir = (prefix = "payouts-run-") => mkdtempSync(join(tmpdir(), prefix))

export const startSandbox = (options: SandboxOptions = {}) =>
  Effect.orDie(
    launchSandbox({ fund: { XAF: 50_000_000, XOF: 50_000_000 }, timeScale: 600, payoutDelaySeconds: 10, webhookRetryMillis: 50, ...options })
  )

export type Sandbox = Effect.Effect.Success<ReturnType<typeof startSandbox>>

/** The sandbox's account as payouts names it: its host plus its wallets' ids. */
export const accountOf = (sandbox: Pick<Sandbox, "baseUrl" | "state">) =>
  serviceAccountId(sandbox.baseUrl, Object.values(sandbox.state.wallets).map((w) => w.id))

export const admin = (sandbox: Sandbox) => {
  const headers = { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json", "Content-Type": "application/json" }
  const call = (method: string, path: string, body?: unknown) =>
    Effect.promise(async () => {
      const response = await fetch(`${sandbox.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      return (await response.json()) as any
    })
  return {
    payouts: Effect.map(call("GET", "/__sandbox/payouts"), (r) => r.payouts as Array<{ reference: string; description: string; status: string; amount: number; phone?: string; phoneNumber?: string }>),
    invariants: call("GET", "/__sandbox/invariants") as Effect.Effect<{ ok: boolean; violations: Array<string> }>,
    faults: (faults: string) => call("PUT", "/__sandbox/faults", { faults }),
    testData: call("GET", "/__sandbox/test-data")
  }
}

/** The run's defaults, with the timings shrunk so a test sees a whole lifecycle in seconds. */
export const settings = (over: Partial<RunSettings> = {}): RunSettings => ({
  ...DEFAULT_RUN_SETTINGS,
  pollIntervalMs: 50,
  pollMaxMs: 400,
  trackTimeoutMs: 120_000,
  reconcileGraceMs: 1_500,
  reconcileDeadlineMs: 120_000,
  leaseTtlMs: 3_000,
  requestTimeoutMs: 3_000,
  callbackUrl: DEFAULT_CALLBACK_URL,
  ...over
})

export interface RunSetup {
  readonly file: string
  readonly state: string
  readonly key?: string
  readonly secret?: string
  readonly requestTimeout?: Duration.DurationInput
  readonly settings?: Partial<RunSettings>
  readonly request?: Partial<RunRequest>
  /** --rate: requests per second to the service. */
  readonly rate?: number
  /** Changes the store the run gets (a test slowing one of its operations). */
  readonly store?: (store: StateStoreShape) => StateStoreShape
}

export const run = (sandbox: Sandbox, setup: RunSetup) => {
  const key = setup.key ?? sandbox.key
  const connection = { baseUrl: sandbox.baseUrl, apiKey: Redacted.make(key), apiSecret: Redacted.make(setup.secret ?? sandbox.secret) }
  const client = clientLayer(connection, { requestTimeout: setup.requestTimeout ?? "3 seconds", getRetry: { times: 6, base: "50 millis", maxElapsed: "10 seconds" }, ...(setup.rate === undefined ? {} : { ratePerSecond: setup.rate }) })
  const request: RunRequest = {
    accountId: accountOf(sandbox),
    file: setup.file,
    settings: settings({ ...(setup.requestTimeout === undefined ? {} : { requestTimeoutMs: Duration.toMillis(Duration.decode(setup.requestTimeout)) }), ...setup.settings }),
    skipInvalid: false,
    allowRepeats: false,
    repeatWindow: Duration.hours(24),
    ledgerEvery: Duration.seconds(1),
    progressEvery: Duration.hours(1),
    dryRun: false,
    ...setup.request
  }
  // The run's notices rendered as the CLI does off a terminal: through Console, so a test can read them.
  return runBatch(request).pipe(
    Effect.provideService(Notices, stderrNotices(false)),
    Effect.provide(
      Layer.mergeAll(
        client,
        Layer.map(SqliteStateStore.layer({ filename: setup.state }), (context) =>
          setup.store === undefined ? context : Context.add(context, StateStore, setup.store(Context.get(context, StateStore)))),
        NodeContext.layer
      )
    )
  )
}

export interface Seller {
  readonly id?: string
  readonly amount: string
  readonly currency?: string
  readonly operator?: string
  readonly phone: string
  readonly name?: string
}

export const writeCsv = (dir: string, name: string, sellers: ReadonlyArray<Seller>) => {
  const lines = ["id,amount,currency,operator,phone,name,email"]
  // By default rows sharing a phone share the first one's name (one phone, one recipient).
  const firstOf = new Map<string, number>()
  for (const [i, s] of sellers.entries()) {
    const first = firstOf.get(s.phone) ?? i
    firstOf.set(s.phone, first)
    lines.push([s.id ?? "", s.amount, s.currency ?? "XAF", s.operator ?? "carrier1_cm", s.phone, s.name ?? `Seller ${first + 1}`, `seller${i + 1}@example.com`].join(","))
  }
  const file = join(dir, name)
  writeFileSync(file, `${lines.join("\n")}\n`)
  return file
}

/** Valid Cameroon mobiles that are not test numbers: they succeed after the payout delay. */
export const ordinaryPhone = (i: number) => `+2376775${String(10_000 + i).slice(-5)}`

export const readLedger = (file: string) => {
  const [header, ...rows] = readFileSync(file, "utf8").trim().split("\n")
  const columns = header.split(",")
  return rows.map((line) => Object.fromEntries(line.split(",").map((cell, i) => [columns[i], cell])))
}

/** Every payout of the sandbox that carries the token of a row, by token. */
export const countByToken = (payouts: ReadonlyArray<{ description: string }>) => {
  const counts = new Map<Token, number>()
  for (const p of payouts) {
    const token = tokenOfDescription(p.description)
    if (token !== null) counts.set(token, (counts.get(token) ?? 0) + 1)
  }
  return counts
}
