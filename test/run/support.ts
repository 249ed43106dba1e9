/** End-to-end runs: a sandbox (kit/Sandbox.ts), a real SQLite file, the commands' client, a CSV of sellers. */
import { NodeContext } from "@effect/platform-node"
import { type Context, Duration, Effect, Layer } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { DEFAULT_RUN_SETTINGS, type RunSettings } from "../../src/run/RunContext.ts"
import { DEFAULT_CALLBACK_URL } from "../../src/run/PayoutBody.ts"
import { runBatch } from "../../src/run/Runner.ts"
import type { RunRequest } from "../../src/run/RunRequest.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import type { StoreServices } from "../../src/store/Sql/Store.ts"
import { stderrNotices } from "../../src/cli/Notices.ts"
import { Notices } from "../../src/run/Notices.ts"
import { clientLayer } from "../kit/Client.ts"
import { accountOf, type Sandbox } from "../kit/Sandbox.ts"

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
  /** Changes the store's services the run gets (a test slowing one of its operations). */
  readonly store?: (services: Context.Context<StoreServices>) => Context.Context<StoreServices>
}

export const run = (sandbox: Sandbox, setup: RunSetup) => {
  const service = { baseUrl: sandbox.baseUrl, key: setup.key ?? sandbox.key, secret: setup.secret ?? sandbox.secret }
  const client = clientLayer(service, { requestTimeout: setup.requestTimeout ?? "3 seconds", getRetry: { times: 6, base: "50 millis", maxElapsed: "10 seconds" }, ...(setup.rate === undefined ? {} : { ratePerSecond: setup.rate }) })
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
        Layer.map(SqliteStateStore.layer({ filename: setup.state }), (context) => (setup.store === undefined ? context : setup.store(context))),
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
