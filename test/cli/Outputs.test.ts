/**
 * Issue 12, items 5 and 12, through the binary: outputs that cannot be written are found before the
 * first payout, or retried and reported (exit 4) after, and `payouts ledger BATCH` writes them again
 * from the store; on a terminal, against a real service, `run` asks before paying.
 * A full disk is a real tiny tmpfs (the machine runs the suite as root, which read-only folders do
 * not stop).
 */
import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, statfsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { onTerminal as asked, serviceOnLoopback } from "./terminalSupport.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = join(ROOT, "bin", "payouts.js")
const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

const envOf = (sandbox: Sandbox, home: string) => {
  const { PAYOUTS_STATE: _drop, ...inherited } = process.env
  return { ...inherited, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, NO_COLOR: "1", XDG_STATE_HOME: join(home, "state") }
}

const cli = (sandbox: Sandbox, home: string, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const proc = yield* Process.start(Process.make("node", BIN, ...args).pipe(Process.workingDirectory(home), Process.env(envOf(sandbox, home))))
    const [stdout, stderr, code] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], { concurrency: "unbounded" })
    return { code: Number(code), stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

/** A tmpfs of `size` at a fresh folder, unmounted with the test's scope. */
const tinyDisk = (size: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = tempDir("payouts-tiny-")
      const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], { encoding: "utf8" })
      if (mounted.status !== 0) throw new Error(`cannot mount a tmpfs for the test: ${mounted.stderr}`)
      return dir
    }),
    (dir) => Effect.sync(() => spawnSync("umount", ["-l", dir]))
  )

/** Fills the file system of `dir` to the last byte. */
const fill = (dir: string) => {
  const free = Number(statfsSync(dir).bavail) * Number(statfsSync(dir).bsize)
  try {
    writeFileSync(join(dir, "filler.bin"), Buffer.alloc(free + 4096))
  } catch {
    // ENOSPC: full, as wanted.
  }
}

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(2000 + i), phone: ordinaryPhone(700 + i) }))

const FAST = ["--poll-interval", "100ms", "--poll-max", "300ms", "--lease-ttl", "3s"]

describe("outputs that cannot be written (issue 12, item 5)", () => {
  it.scopedLive(
    "an --out folder without room for the batch is refused before the first payout (exit 4, named)",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-home-")
        const out = yield* tinyDisk("64k")
        const file = writeCsv(home, "big.csv", sellers(200, "B"))
        const result = yield* cli(sandbox, home, ["run", file, "--out", out, ...FAST])
        expect(result.code, result.stderr).toBe(4)
        expect(result.stderr).toContain(`the output folder ${out} has`)
        expect(result.stderr).toContain("Refused before paying anything")
        expect(yield* admin(sandbox).payouts).toEqual([])
      }),
    60_000
  )

  it.scopedLive(
    "a disk that fills up while paying: every row paid once, outputs retried, exit 4 naming the file; payouts ledger writes them again",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-home-")
        const out = yield* tinyDisk("1m")
        const file = writeCsv(home, "full.csv", sellers(8, "F"))
        const run = yield* Effect.fork(cli(sandbox, home, ["run", file, "--out", out, "--output-retry", "2s", "--ledger-every", "1h", ...FAST]))
        // Fill the disk once payouts are going out: the run cannot end before they are tracked (1 s).
        while ((yield* admin(sandbox).payouts).length === 0) yield* Effect.sleep("20 millis")
        fill(out)
        const result = yield* run.await.pipe(Effect.flatten)
        expect(result.code, result.stderr).toBe(4)
        expect(result.stderr).toContain(`disk full writing ${join(out, "full.")}`)
        expect(result.stderr).toContain("payouts ledger")
        const payouts = yield* admin(sandbox).payouts
        expect([...countByToken(payouts).values()]).toEqual(Array(8).fill(1))

        const again = join(home, "again")
        mkdirSync(again)
        const batchId = /payouts ledger ([0-9a-f]+)/.exec(result.stderr)?.[1] ?? ""
        const ledger = yield* cli(sandbox, home, ["ledger", batchId, "--out", again])
        expect(ledger.code, ledger.stderr).toBe(0)
        const rows = readLedger(join(again, "full.ledger.csv"))
        expect(rows.length).toBe(8)
        expect(new Set(rows.map((r) => r.reference))).toEqual(new Set(payouts.map((p) => p.reference)))
        expect(existsSync(join(again, "full.report.html"))).toBe(true)
        expect(JSON.parse(readFileSync(join(again, "full.summary.json"), "utf8")).batch_id).toBe(batchId)
      }),
    90_000
  )
})

describe("a state store that cannot be used (issue 12, item 6): exit 4 naming it, nothing paid", () => {
  it.scopedLive(
    "a file that is not a database, and a store's folder without room",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-home-")
        const file = writeCsv(home, "store.csv", sellers(3, "S"))
        const corrupt = join(home, "corrupt.db")
        writeFileSync(corrupt, Buffer.from("this is not a SQLite database, just bytes ".repeat(200)))
        const notDb = yield* cli(sandbox, home, ["run", file, "--state", corrupt, ...FAST])
        expect(notDb.code, notDb.stderr).toBe(4)
        expect(notDb.stderr).toContain(`the state store at ${corrupt} is not a valid database`)
        expect(notDb.stderr.split("\n").filter((l) => l.startsWith("payouts:")).length).toBe(1)

        const tiny = yield* tinyDisk("400k")
        const big = writeCsv(home, "big-store.csv", sellers(200, "T"))
        const full = yield* cli(sandbox, home, ["run", big, "--state", join(tiny, "payouts.db"), ...FAST])
        expect(full.code, full.stderr).toBe(4)
        expect(full.stderr).toContain(`the state store's folder ${tiny} has`)
        expect(yield* admin(sandbox).payouts).toEqual([])
      }),
    60_000
  )
})

describe("a look before paying real money (issue 12, item 12)", () => {
  it.scopedLive(
    "on a terminal: the account and the totals are shown and a no pays nothing (exit 2); yes pays; --yes asks nothing",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        // Our sandbox on loopback is a rehearsal and is not asked (issue 31 item 6): the service is
        // reached here the way a tunnel to a real one would be, on loopback without /__sandbox.
        const service = { ...sandbox, baseUrl: (yield* serviceOnLoopback(sandbox)).baseUrl }
        const home = tempDir("payouts-home-")
        const onTerminal = (_: Sandbox, cwd: string, args: ReadonlyArray<string>, answer: string | undefined) => asked(cwd, envOf(service, cwd), args, answer)
        const file = writeCsv(home, "ask.csv", sellers(3, "A"))
        const declined = yield* onTerminal(sandbox, home, ["run", file, ...FAST], "no")
        expect(declined.output).toContain("About to pay real money")
        expect(declined.output).toContain(`service ${new URL(service.baseUrl).host}, key sha256:`)
        expect(declined.output).toContain("3 rows to pay")
        expect(declined.output).toMatch(/XAF: 3 rows, 6[ ,.]?003 XAF \+ est\. fees/)
        expect(declined.output).not.toContain(sandbox.key)
        expect(declined.code, declined.output).toBe(2)
        expect(yield* admin(sandbox).payouts).toEqual([])

        const accepted = yield* onTerminal(sandbox, home, ["run", file, ...FAST], "yes")
        expect(accepted.code, accepted.output).toBe(0)
        expect((yield* admin(sandbox).payouts).length).toBe(3)

        const other = writeCsv(home, "quiet.csv", sellers(2, "Q"))
        const quiet = yield* onTerminal(sandbox, home, ["run", other, "--yes", ...FAST], undefined)
        expect(quiet.code, quiet.output).toBe(0)
        expect(quiet.output).not.toContain("About to pay")
        expect((yield* admin(sandbox).payouts).length).toBe(5)
      }),
    90_000
  )
})
