/**
 * Issue 31 item 10: a rehearsal on a time-scaled sandbox settles a row in doubt as a run against the
 * real service would. The sandbox declares its virtual clock (X-Sandbox-Clock); the resend rules find
 * its days with it, and a row whose POST failed before commit is resent once after the listing proved
 * it absent. A service whose Date differs from ours without a believable declaration is still refused
 * any resend (DESIGN 7 rule 7): a proxy that moves the Date by an hour, with or without the header.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, run, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROWS = 12
/** 5xx before commit: the client cannot know the payout was never made (outcome unknown). */
const FAULTS = "payout.error_before=0.25,seed=5"

const sellers = (prefix: string) =>
  Array.from({ length: ROWS }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) }))

const faultCounters = (sandbox: Sandbox) =>
  Effect.promise(async () => {
    const response = await fetch(`${sandbox.origin}/__sandbox/faults`, { headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json" } })
    return ((await response.json()) as { counters: Record<string, number> }).counters
  })

/**
 * Runs the batch; once every row has been sent once, the faults are cleared, so a resend is answered.
 * Returns the run's result, the rows that met the fault and the sandbox's payouts by token.
 */
const rehearse = (sandbox: Sandbox, name: string, target: Sandbox, deadlineMs: number) =>
  Effect.gen(function* () {
    const dir = tempDir("payouts-clock-")
    const file = writeCsv(dir, `${name}.csv`, sellers(name))
    const fiber = yield* Effect.fork(
      run(target, { file, state: join(dir, "state.db"), settings: { concurrency: 1, reconcileGraceMs: 1_500, reconcileDeadlineMs: deadlineMs } })
    )
    let counters = yield* faultCounters(sandbox)
    while ((counters["payout.requests"] ?? 0) < ROWS) {
      yield* Effect.sleep("50 millis")
      counters = yield* faultCounters(sandbox)
    }
    const failed = counters["payout.error_before"] ?? 0
    yield* admin(sandbox).faults("")
    const result = yield* Fiber.join(fiber)
    const summary = JSON.parse(readFileSync(join(dir, `${name}.summary.json`), "utf8"))
    return { result, failed, summary, counts: countByToken(yield* admin(sandbox).payouts) }
  })

/** A proxy on loopback that moves the service's Date by `shiftMs`, and keeps or drops X-Sandbox-Clock. */
const skewingProxy = (sandbox: Sandbox, shiftMs: number, keepDeclaration: boolean) =>
  Effect.acquireRelease(
    Effect.async<Http.Server>((resume) => {
      const target = new URL(sandbox.origin)
      const server = Http.createServer((request, response) => {
        const forward = Http.request(
          { host: target.hostname, port: target.port, path: request.url, method: request.method, headers: request.headers },
          (answer) => {
            const headers = { ...answer.headers }
            if (typeof headers.date === "string") headers.date = new Date(Date.parse(headers.date) + shiftMs).toUTCString()
            if (!keepDeclaration) delete headers["x-sandbox-clock"]
            response.writeHead(answer.statusCode ?? 502, headers)
            answer.pipe(response)
          }
        )
        forward.on("error", () => response.destroy())
        request.pipe(forward)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })))
  ).pipe(Effect.map((server) => ({ ...sandbox, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })))

describe("a sandbox's declared clock (issue 31 item 10)", () => {
  it.scopedLive("a time-scaled sandbox: the rows in doubt are resent once after proof and paid once, without a person", () =>
    Effect.gen(function* () {
      // 600 sandbox seconds per real second: its Date runs hours ahead of ours within the test.
      const sandbox = yield* startSandbox({ timeScale: 600, payoutDelaySeconds: 10, faults: FAULTS })
      const { counts, failed, result, summary } = yield* rehearse(sandbox, "scaled", sandbox, 120_000)
      expect(failed).toBeGreaterThan(0)
      expect(counts.size).toBe(ROWS)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect(result.exitCode).toBe(0)
      expect(summary.counts).toEqual({ completed: ROWS })
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    }), 120_000)

  for (const keepDeclaration of [false, true]) {
    it.scopedLive(
      `a service whose Date is an hour off ${keepDeclaration ? "against its own declaration" : "without a declaration"}: nothing is resent, the rows go to a person`,
      () =>
        Effect.gen(function* () {
          const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: FAULTS })
          const skewed = yield* skewingProxy(sandbox, 60 * 60 * 1000, keepDeclaration)
          const { counts, failed, result } = yield* rehearse(sandbox, keepDeclaration ? "lying" : "skewed", skewed, 12_000)
          expect(failed).toBeGreaterThan(0)
          // The rows that met the fault were never made, and never resent: a person decides.
          expect(counts.size).toBe(ROWS - failed)
          expect([...counts.values()].every((n) => n === 1)).toBe(true)
          expect(result.exitCode).toBe(5)
          const alarms = (result.summary as { alarms?: ReadonlyArray<unknown> }).alarms ?? []
          expect(alarms.length).toBe(failed)
        }),
      120_000
    )
  }
})
