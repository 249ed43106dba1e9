/** One `payouts run` in this process (as the CLI wires it), against a sandbox process; timings read from the store. */
import { NodeContext } from "@effect/platform-node"
import { DateTime, Duration, Effect, Layer, Redacted, Stream } from "effect"
import { resolveAccount } from "../../src/api/Account.ts"
import { clientLayer } from "../../src/cli/Connect.ts"
import { DEFAULT_RUN_SETTINGS, type RunSettings } from "../../src/run/RunContext.ts"
import { runBatch } from "../../src/run/Runner.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import type { StoreError } from "../../src/store/Model.ts"
import { StateStore } from "../../src/store/StateStore.ts"
import type { SandboxProcess } from "./sandbox.ts"
import { BatchId } from "../../src/domain/Ids.ts"

export interface OrchestratorRun {
  readonly sandbox: SandboxProcess
  readonly file: string
  /** The SQLite file of the store, unless `store` is given. */
  readonly state: string
  /** The store to run on (e.g. PostgresStateStore.layer); default SQLite at `state`. */
  readonly store?: Layer.Layer<StateStore, StoreError>
  readonly outDir: string
  readonly settings?: Partial<RunSettings>
  /** Requests per second given to us; undefined = adaptive. */
  readonly rate?: number
  readonly listen?: { readonly host: string; readonly port: number }
}

export interface OrchestratorTimes {
  readonly exitCode: number
  readonly rows: number
  readonly counts: Record<string, number>
  /** Wall clock (ms since epoch). */
  readonly startedAt: number
  readonly firstIntentAt: number
  readonly lastSubmittedAt: number
  readonly lastFinalAt: number
  readonly endedAt: number
}

/** The CLI's defaults, with the shorter reconcile grace the bench has always measured with. */
export const defaultSettings = (over: Partial<RunSettings> = {}): RunSettings => ({
  ...DEFAULT_RUN_SETTINGS,
  reconcileGraceMs: 600_000,
  ...over
})

const millis = (d: DateTime.Utc | null) => (d === null ? 0 : DateTime.toEpochMillis(d))

export const runOrchestrator = (run: OrchestratorRun): Promise<OrchestratorTimes> => {
  const { sandbox } = run
  const connection = { baseUrl: sandbox.baseUrl, apiKey: Redacted.make(sandbox.key), apiSecret: Redacted.make(sandbox.secret) }
  const client = clientLayer(connection, { ratePerSecond: run.rate })
  const settings = defaultSettings({
    callbackUrl: run.listen === undefined ? sandbox.sinkUrl : `http://${run.listen.host}:${run.listen.port}/webhooks`,
    ...run.settings
  })
  const program = Effect.gen(function* () {
    const account = yield* resolveAccount(sandbox.baseUrl)
    const startedAt = Date.now()
    const result = yield* runBatch({
      accountId: account,
      file: run.file,
      outDir: run.outDir,
      settings,
      skipInvalid: false,
      allowRepeats: false,
      repeatWindow: Duration.hours(24),
      ...(run.listen === undefined ? {} : { listen: run.listen }),
      ledgerEvery: Duration.seconds(15),
      progressEvery: Duration.hours(1),
      dryRun: false
    })
    const endedAt = Date.now()
    const store = yield* StateStore
    const batchId = BatchId.make(String(result.summary.batch_id))
    let firstIntentAt = Number.POSITIVE_INFINITY
    let lastSubmittedAt = 0
    let lastFinalAt = 0
    let rows = 0
    yield* store.batch(account, batchId).streamRows().pipe(
      Stream.runForEach((row) =>
        Effect.sync(() => {
          rows++
          if (row.intentAt !== null) firstIntentAt = Math.min(firstIntentAt, millis(row.intentAt))
          lastSubmittedAt = Math.max(lastSubmittedAt, millis(row.submittedAt))
          lastFinalAt = Math.max(lastFinalAt, millis(row.finalAt))
        })
      )
    )
    return {
      exitCode: result.exitCode,
      rows,
      counts: ((result.summary as Record<string, unknown>).counts ?? {}) as Record<string, number>,
      startedAt,
      firstIntentAt,
      lastSubmittedAt,
      lastFinalAt,
      endedAt
    } satisfies OrchestratorTimes
  })
  return Effect.runPromise(
    program.pipe(
      // As the CLI's root (src/cli/main.ts): nothing exports traces.
      Effect.withTracerEnabled(false),
      Effect.provide(Layer.mergeAll(client, run.store ?? SqliteStateStore.layer({ filename: run.state }), NodeContext.layer))
    )
  )
}
