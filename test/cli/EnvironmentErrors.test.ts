/**
 * A bad value in an environment variable is one line naming the variable, its value and why, exit 2,
 * before anything is sent (not @effect/cli's `(Invalid data at ...)` text and a pointer to --help);
 * the flags refuse the same values in the same words. Through the real binary.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

/** No PAYOUTS_* of the caller; a service on the discard port, which nothing should ever reach. */
const payouts = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  Effect.promise(
    () =>
      new Promise<{ code: number; stdout: string; stderr: string }>((ok) => {
        const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PAYOUTS_")))
        const home = tempDir("payouts-env-")
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: ROOT,
          env: {
            ...inherited,
            PAYOUTS_BASE_URL: "http://127.0.0.1:9/v1",
            PAYOUTS_API_KEY: "k",
            PAYOUTS_API_SECRET: "s",
            PAYOUTS_STATE: join(home, "state.db"),
            XDG_CONFIG_HOME: join(home, "config"),
            NO_COLOR: "1",
            ...env
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (d) => (stdout += d))
        child.stderr.on("data", (d) => (stderr += d))
        child.on("close", (code) => ok({ code: code ?? -1, stdout, stderr }))
      })
  )

describe("a bad value in the environment (the binary)", () => {
  it.live("is one payouts: line naming the variable, its value and why, exit 2", () =>
    Effect.gen(function* () {
      const file = writeCsv(tempDir("payouts-env-"), "pay.csv", [{ id: "E-1", amount: "1000", phone: ordinaryPhone(1) }])
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
        [["run", file], { PAYOUTS_CONCURRENCY: "abc" }, "payouts: PAYOUTS_CONCURRENCY=abc: must be a whole number, at least 1"],
        [["run", file], { PAYOUTS_CONCURRENCY: "0" }, "payouts: PAYOUTS_CONCURRENCY=0: must be a whole number, at least 1"],
        [["run", file], { PAYOUTS_RATE: "-1" }, "payouts: PAYOUTS_RATE=-1: must be a number above 0"],
        [["validate", file], { PAYOUTS_REQUEST_TIMEOUT: "soon" }, "payouts: PAYOUTS_REQUEST_TIMEOUT=soon: not a duration: write it like 200ms, 1s, 5m, 26h or 1h30m"],
        [["run", file], { PAYOUTS_RESEND_UNKNOWN: "maybe" }, "payouts: PAYOUTS_RESEND_UNKNOWN=maybe: must be one of after, never"],
        [["watch", tempDir("payouts-env-jobs-"), "--once"], { PAYOUTS_LOG_FORMAT: "xml" }, "payouts: PAYOUTS_LOG_FORMAT=xml: must be one of text, json"]
      ]
      for (const [args, env, line] of cases) {
        const ran = yield* payouts(args, env)
        expect(ran.code, line).toBe(2)
        expect(ran.stdout, line).toBe("")
        expect(ran.stderr.trim(), line).toBe(line)
      }
    }), 60_000)

  it.live("the flags refuse the same values in the same words (a rate of 0 would never send)", () =>
    Effect.gen(function* () {
      const file = writeCsv(tempDir("payouts-env-"), "pay.csv", [{ id: "E-1", amount: "1000", phone: ordinaryPhone(1) }])
      const rate = yield* payouts(["run", file, "--rate", "0"], {})
      expect(rate.code).toBe(2)
      expect(rate.stderr.trim()).toBe("payouts: --rate must be a number above 0 (see payouts run --help)")
      const concurrency = yield* payouts(["run", file, "--concurrency", "0"], {})
      expect(concurrency.code).toBe(2)
      expect(concurrency.stderr.trim()).toBe("payouts: --concurrency must be a whole number, at least 1 (see payouts run --help)")
    }), 30_000)
})
