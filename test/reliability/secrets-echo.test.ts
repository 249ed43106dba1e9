/**
 * A service that echoes the caller's credentials back, in every spelling (issue 30, item 6): through
 * the real binary, `payouts wallet` and a `run` against the sandbox's `echo_secret` fault; neither the
 * key nor the secret, in any spelling, is in what they print, in the ledger, summary, report, errors
 * file, nor in the bytes of the SQLite store.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { cli, FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ECHO_FORMS } from "../../src/sandbox/EchoSecret.ts"
import { PAYOUT_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import { leaksIn } from "./support/Spellings.ts"

const KEY = "pk_live_Ab/Cd+Ef-42Key"
const SECRET = "sk/live_Sup3r+Secret/Value=="

describe("secrets echoed by the service never leave (the binary)", () => {
  for (const form of ECHO_FORMS) {
    it.scopedLive(`echo_secret=${form}: wallet and run print, write and store no spelling of the key or secret`, () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, key: KEY, secret: SECRET, faults: `wallet.echo_secret=${form}` })
        const dir = tempDir("payouts-echo-")
        const state = join(dir, "state.db")
        const printed: Array<string> = []

        // The wallet answer is a refusal that quotes the credentials: printed as one line, exit 1.
        const wallet = yield* cli(sandbox, state, ["wallet"])
        expect(wallet.code, wallet.stderr).toBe(1)
        expect(wallet.stderr).toContain("[redacted]")
        printed.push(wallet.stdout, wallet.stderr)

        // Half the payouts refused with the echo (their rows failed), the rest answered with it.
        yield* admin(sandbox).faults(`wallet.echo_secret=${form}:0,payout.echo_secret=${form}:0.5,status.echo_secret=${form}:0,transactions.echo_secret=${form}:0,seed=3`)
        // The last rows' payouts fail at the operator: a status record's description (echoing) becomes a row's error.
        const file = writeCsv(dir, "sellers.csv", [
          ...Array.from({ length: 6 }, (_, i) => ({ id: `S-${i}`, amount: String(1000 + i), phone: ordinaryPhone(i) })),
          ...[1500, 1600, 1700].map((amount, i) => ({ id: `F-${i}`, amount: String(amount), phone: PAYOUT_NUMBERS.CM.failure }))
        ])
        const out = join(dir, "out")
        const run = yield* cli(sandbox, state, ["run", file, ...FAST, "--out", out, "--json"])
        printed.push(run.stdout, run.stderr)
        expect([0, 1], run.stderr).toContain(run.code)
        const summary = JSON.parse(run.stdout)
        expect(summary.counts.failed ?? 0, run.stdout).toBeGreaterThan(0)
        const ledger = readFileSync(join(out, "sellers.ledger.csv"), "utf8")
        expect(ledger).toContain("[redacted]")

        const files = readdirSync(out).map((f) => join(out, f))
        expect(files.some((f) => f.endsWith(".report.html")) && files.some((f) => f.endsWith(".summary.json"))).toBe(true)
        const store = [state, `${state}-wal`, `${state}-shm`].filter(existsSync)
        const leaks = [
          ...printed.map((text, i) => ({ where: `printed #${i}`, found: leaksIn(Buffer.from(text), KEY, SECRET) })),
          ...[...files, ...store].map((f) => ({ where: f, found: leaksIn(readFileSync(f), KEY, SECRET) }))
        ].filter((l) => l.found.length > 0)
        expect(leaks).toEqual([])
      }), 60_000)
  }
})
