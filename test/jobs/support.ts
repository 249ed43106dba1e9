/** Harness for the job folder: a watcher in this process over a real sandbox, SQLite and files. */
import { NodeContext } from "@effect/platform-node"
import { Duration, Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { runBatch } from "../../src/run/Runner.ts"
import type { RunRequest } from "../../src/run/RunRequest.ts"
import type { CronGate } from "../../src/jobs/CronGate.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { makeWatcher } from "../../src/jobs/Watcher.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { settings } from "../run/support.ts"
import { clientLayer } from "../kit/Client.ts"
import { accountOf, type Sandbox } from "../kit/Sandbox.ts"
import { withHandles } from "../kit/Store.ts"

export const layersFor = (sandbox: Sandbox, state: string) => {
  const client = clientLayer(sandbox, { requestTimeout: "3 seconds", getRetry: { times: 6, base: "50 millis", maxElapsed: "10 seconds" } })
  return Layer.mergeAll(client, withHandles(SqliteStateStore.layer({ filename: state })), NodeContext.layer)
}

export interface WatchSetup {
  readonly root: string
  readonly requireApproval?: boolean
  readonly settleMs?: number
  readonly once?: boolean
  readonly schedule?: CronGate
  readonly request?: Partial<Omit<RunRequest, "file" | "dryRun">>
}

export const requestFor = (sandbox: Sandbox, over: Partial<Omit<RunRequest, "file" | "dryRun">> = {}): Omit<RunRequest, "file" | "dryRun"> => ({
  accountId: accountOf(sandbox),
  settings: settings(),
  skipInvalid: false,
  allowRepeats: false,
  repeatWindow: Duration.hours(24),
  ledgerEvery: Duration.seconds(1),
  progressEvery: Duration.hours(1),
  ...over
})

/** A watcher on `root` whose jobs run against the sandbox (provide `layersFor`). */
export const watcherFor = (sandbox: Sandbox, setup: WatchSetup) => {
  mkdirSync(setup.root, { recursive: true })
  const base = requestFor(sandbox, setup.request)
  return makeWatcher(
    {
      accountId: base.accountId,
      folder: jobFolder(setup.root),
      requireApproval: setup.requireApproval ?? false,
      feePercent: 2,
      settleMs: setup.settleMs ?? 0,
      retryEvery: Duration.millis(200),
      once: setup.once ?? false,
      ...(setup.schedule === undefined ? {} : { schedule: setup.schedule })
    },
    (file, dryRun) => runBatch({ ...base, file, dryRun })
  )
}

export const refund = (sandbox: Sandbox, reference: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${sandbox.origin}/__sandbox/refund`, {
      method: "POST",
      headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ reference })
    })
    return { status: response.status, body: await response.text() }
  })

export const stateIn = (root: string) => join(root, ".state", "payouts.db")
