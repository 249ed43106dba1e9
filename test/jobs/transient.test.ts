/**
 * Issue 12, item 2, through the real CLI and daemon: a file the service keeps from running (unreachable,
 * a refused key, 5xx) stays in processing/, never rejected/; `watch --once` exits 3; health says why;
 * once the service is back it is paid exactly once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { closedPort, FAST, healthUrl, payouts, payoutsDone, serviceOf, until } from "./cli.ts"

// As `ls` shows a folder: without the hidden `.NAME.taken` the watcher keeps beside a file it took.
const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith(".")).sort() : [])

const sellers = (n: number, prefix: string, offset = 0) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(offset + i) }))

const setup = () => {
  const base = tempDir("payouts-transient-")
  const root = join(base, "jobs")
  mkdirSync(root, { recursive: true })
  return { root, state: join(base, "state.db"), processing: join(root, "processing"), rejected: join(root, "rejected"), done: join(root, "done") }
}

const health = (url: string) =>
  Effect.promise(() =>
    fetch(url)
      .then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
      .catch(() => ({ status: 0, body: {} as any }))
  )

describe("a transient failure never rejects a valid batch", () => {
  it.scopedLive("unreachable, then a refused key: kept in processing/, exit 3, health says why; back: paid exactly once", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const service = serviceOf(sandbox)
      const { done, processing, rejected, root, state } = setup()
      const down = { ...service, baseUrl: sandbox.baseUrl.replace(/:\d+/, `:${yield* closedPort}`) }
      writeCsv(root, "pay.csv", sellers(4, "U"))
      const once = (s: typeof service) => payoutsDone(s, ["watch", root, "--once", "--state", state, ...FAST])

      const unreachable = yield* once(down)
      expect(unreachable.code).toBe(3)
      expect(unreachable.output).toMatch(/the service cannot be reached/)
      expect(ls(processing)).toEqual(["pay.csv"])
      expect(ls(rejected)).toEqual([])

      // The daemon waits for the service, and its health says why (503, degraded).
      const daemon = yield* payouts(down, ["watch", root, "--state", state, "--health", "127.0.0.1:0", "--retry-every", "1s", ...FAST])
      const url = yield* healthUrl(() => daemon.stdout() + daemon.stderr())
      yield* until("health naming the unreachable service", Effect.map(health(url), (h) => /cannot be reached/.test(h.body.service_problem?.reason ?? "")))
      const answer = yield* health(url)
      expect(answer.status).toBe(503)
      expect(answer.body.status).toBe("degraded")
      daemon.child.kill("SIGTERM")
      yield* daemon.exit

      const wrongKey = yield* once({ ...service, key: "sbx_not_the_key" })
      expect(wrongKey.code).toBe(3)
      expect(wrongKey.output).toMatch(/the service refused the key/)
      expect(wrongKey.output).not.toContain("sbx_not_the_key")
      expect(ls(processing)).toEqual(["pay.csv"])
      expect(ls(rejected)).toEqual([])
      expect(yield* admin(sandbox).payouts).toEqual([])

      const back = yield* once(service)
      expect(back.code).toBe(0)
      expect(ls(done)).toContain("pay.csv")
      expect(ls(processing)).toEqual([])
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(4)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    }),
    180_000
  )

  it.scopedLive("the service fails (HTTP 5xx) after the daemon started: the balance preflight fails, the file stays in processing/ and is retried with backoff until paid", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const service = serviceOf(sandbox)
      const { done, processing, rejected, root, state } = setup()
      const daemon = yield* payouts(service, ["watch", root, "--state", state, "--health", "127.0.0.1:0", "--retry-every", "1s", ...FAST])
      const url = yield* healthUrl(() => daemon.stdout() + daemon.stderr())
      yield* until("the daemon up", Effect.map(health(url), (h) => h.status === 200))

      yield* admin(sandbox).faults("wallet.error_before=1")
      writeCsv(root, "mid.csv", sellers(3, "M", 20))
      const kept = Effect.map(health(url), (h) =>
        ((h.body.kept_in_processing ?? []) as Array<{ file: string; kind: string; reason: string; attempts: number }>).find((k) => k.file.endsWith("mid.csv"))
      )
      yield* until("health naming the server error", Effect.map(kept, (k) => k?.kind === "service" && /HTTP 5\d\d/.test(k.reason)), 60_000)
      yield* until("a second try", Effect.map(kept, (k) => (k?.attempts ?? 0) >= 2), 60_000)
      expect(ls(processing)).toContain("mid.csv")
      expect(ls(rejected)).toEqual([])
      expect(daemon.stdout() + daemon.stderr()).toMatch(/kept in processing\/, not rejected: the service answers HTTP 5\d\d/)
      expect(yield* admin(sandbox).payouts).toEqual([])

      yield* admin(sandbox).faults("")
      yield* until("the batch done", Effect.sync(() => existsSync(join(done, "mid.summary.json"))), 60_000)
      yield* until("health clear", Effect.map(health(url), (h) => h.status === 200 && (h.body.kept_in_processing ?? []).length === 0))
      daemon.child.kill("SIGTERM")
      expect(yield* daemon.exit).toBe(0)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(3)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    }),
    180_000
  )
})
