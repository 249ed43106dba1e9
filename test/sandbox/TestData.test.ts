/**
 * Issue 31 item 11: the test-data link the sandbox's banner prints opens in a browser on this machine
 * (no credentials: it holds only the public test numbers and cards). Every other admin endpoint still
 * asks for the sandbox's credentials. Through the real binary: `payouts sandbox --port 0`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { PAYOUT_NUMBERS, TEST_CARDS } from "../../src/sandbox/TestNumbers.ts"

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

/** Starts `payouts sandbox --port 0` and waits for the test-data URL its banner prints. */
const sandboxBanner = Effect.acquireRelease(
  Effect.async<{ url: string; kill: () => void }, Error>((resume) => {
    const child = spawn(process.execPath, [BIN, "sandbox", "--port", "0"], { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => {
      out += String(d)
      const found = /Test numbers and cards: (\S+)/.exec(out)
      if (found !== null) resume(Effect.succeed({ url: found[1], kill: () => child.kill("SIGTERM") }))
    })
    child.on("exit", (code) => resume(Effect.fail(new Error(`payouts sandbox ended (${code}) before its banner: ${out}`))))
  }),
  (s) => Effect.sync(s.kill)
)

describe("the sandbox's test-data page (issue 31 item 11)", () => {
  it.scopedLive("opens without credentials from this machine, as a browser asks for it", () =>
    Effect.gen(function* () {
      const { url } = yield* sandboxBanner
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__sandbox\/test-data$/)
      const page = yield* Effect.promise(() => fetch(url, { headers: { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } }))
      expect(page.status).toBe(200)
      const body = (yield* Effect.promise(() => page.json())) as { payout: typeof PAYOUT_NUMBERS; cards: typeof TEST_CARDS }
      expect(body.payout.CM).toEqual(PAYOUT_NUMBERS.CM)
      expect(body.cards).toEqual(TEST_CARDS)
      // Nothing else is opened: the other admin endpoints still need the credentials.
      const faults = yield* Effect.promise(() => fetch(url.replace("/test-data", "/faults")))
      expect(faults.status).toBe(401)
      const payouts = yield* Effect.promise(() => fetch(url.replace("/test-data", "/payouts")))
      expect(payouts.status).toBe(401)
    }), 60_000)
})
