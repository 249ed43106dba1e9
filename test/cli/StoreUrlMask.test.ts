/**
 * A database URL's password is never printed (issue 30, item 6): `PAYOUTS_STATE=postgres://user:PASSWORD@...
 * payouts watch` shows the user and `***` in its first log line, text and JSON, and in the driver's error.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli } from "./binarySupport.ts"

const PASSWORD = "Pa55-w0rd_Secret"
// Port 1 on the loopback: nothing listens, the store cannot be opened and watch ends.
const URL_WITH_PASSWORD = `postgres://payouts:${PASSWORD}@127.0.0.1:1/payouts`

describe("payouts watch with a postgres:// store URL (the binary)", () => {
  for (const format of ["text", "json"] as const) {
    it.scopedLive(`--log-format ${format}: the first log line and the error show payouts:***@, never the password`, () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1 })
        const dir = tempDir("payouts-store-url-")
        const watched = yield* cli(sandbox, URL_WITH_PASSWORD, ["watch", join(dir, "jobs"), "--log-format", format])
        const output = watched.stdout + watched.stderr
        expect(output).not.toContain(PASSWORD)
        const first = output.split("\n").find((line) => line.includes("state store"))
        expect(first, output).toContain("postgres://payouts:***@127.0.0.1:1/payouts")
        if (format === "json") expect(JSON.parse(first ?? "{}").message).toBe("state store: postgres://payouts:***@127.0.0.1:1/payouts")
      }), 90_000)
  }
})
