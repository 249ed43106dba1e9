/**
 * `--listen` on a wildcard address (issue 30, item 7), through the binary: refused without a
 * `--callback-url` before anything is sent (exit 2); with one, it says it listens on every interface
 * and the service is given that URL, never the wildcard.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { type Sandbox, startSandbox, transactionsNow } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST } from "./binarySupport.ts"

const requestsSeen = (sandbox: Sandbox) =>
  Effect.promise(async () => {
    const response = await fetch(`${sandbox.origin}/__sandbox/faults`, { headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json" } })
    const body = (await response.json()) as { counters?: Record<string, number> }
    return body.counters?.requests ?? 0
  })

const callbacks = (sandbox: Sandbox) =>
  Effect.map(transactionsNow(sandbox), (txns) => txns.flatMap((t) => ("callbackUrl" in t && typeof t.callbackUrl === "string" ? [t.callbackUrl] : [])))

describe("payouts run --listen on a wildcard address (the binary)", () => {
  it.scopedLive("each wildcard spelling without --callback-url: exit 2 before any request, naming the fix", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-listen-")
      const file = writeCsv(dir, "sellers.csv", [{ id: "S-1", amount: "1000", phone: ordinaryPhone(1) }])
      for (const listen of ["0:0", "0.0.0.0:0", "[::]:0", ":::0", ":0"]) {
        const refused = yield* cli(sandbox, join(dir, "state.db"), ["run", file, ...FAST, "--listen", listen], { PAYOUTS_CALLBACK_URL: "" })
        expect(refused.code, `${listen}: ${refused.stderr}`).toBe(2)
        expect(refused.stderr).toContain("listens on every interface")
        expect(refused.stderr).toContain("--callback-url")
      }
      expect(yield* requestsSeen(sandbox)).toBe(0)
      expect((yield* transactionsNow(sandbox)).filter((t) => t.type === "payout")).toHaveLength(0)
    }), 60_000)

  it.scopedLive("with --callback-url it runs, says it listens on every interface, and sends that URL; one address keeps its own URL", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-listen-")
      const state = join(dir, "state.db")
      const wide = writeCsv(dir, "wide.csv", [{ id: "W-1", amount: "1000", phone: ordinaryPhone(1) }])
      const run = yield* cli(sandbox, state, ["run", wide, ...FAST, "--listen", "0.0.0.0:0", "--callback-url", "https://payouts.example.com/webhooks"])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toMatch(/listening on every interface \(http:\/\/0\.0\.0\.0:\d+\/webhooks\); the service is given https:\/\/payouts\.example\.com\/webhooks/)
      expect(yield* callbacks(sandbox)).toEqual(["https://payouts.example.com/webhooks"])

      const one = writeCsv(dir, "one.csv", [{ id: "O-1", amount: "1200", phone: ordinaryPhone(2) }])
      const local = yield* cli(sandbox, state, ["run", one, ...FAST, "--listen", "127.0.0.1:0"], { PAYOUTS_CALLBACK_URL: "" })
      expect(local.code, local.stderr).toBe(0)
      expect(local.stderr).not.toContain("every interface")
      const sent = yield* callbacks(sandbox)
      expect(sent).toHaveLength(2)
      expect(sent.filter((u) => u !== "https://payouts.example.com/webhooks")[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
      for (const url of sent) expect(new URL(url).hostname).not.toMatch(/^(0|0\.0\.0\.0|\[::\])$/)
    }), 60_000)
})
