/**
 * Security checks (issue 6.4): secrets in no output, formula escaping over every leading character,
 * a webhook receiver that forged/replayed/malformed bodies cannot move, owner-only state files,
 * output paths that stay where they belong.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Console, Effect, Fiber, Stream } from "effect"
import fc from "fast-check"
import { spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"
import Papa from "papaparse"
import { fileBatchId } from "../../src/intake/FileBatchId.ts"
import { escapeCell, neutraliseFormula } from "../../src/output/CsvCells.ts"
import { outputPaths } from "../../src/output/AtomicFile.ts"
import { NodeContext } from "@effect/platform-node"
import { openStore } from "../store/fixtures.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "../run/support.ts"
import { accountOf, admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = resolve(import.meta.dirname, "..", "..")
const LEADING = ["=", "+", "-", "@", "\t", "\r", "\n", "\u0000"]
const PLAIN_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/

/** Polls `check` until it yields a value; dies with `what` after the deadline (a safety net, not an assertion). */
const until = <A>(what: string, check: Effect.Effect<A | undefined>, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const began = Date.now()
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() - began > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

/** A console that keeps what the run writes (the webhook receiver says where it listens). */
const recordingConsole = Effect.map(Effect.console, (base) => {
  const lines: Array<string> = []
  const keep = (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.map(String).join(" ")))
  const console: Console.Console = { ...base, error: keep, log: keep }
  return { console, lines }
})

/** Every file under `dir`, recursively. */
const allFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(join(dir, e.name)) : [join(dir, e.name)]))

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const proc = spawn(process.execPath, [join(ROOT, "bin", "payouts.js"), ...args], { env: { ...process.env, ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    proc.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t))
    proc.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
    proc.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

describe("formula injection", () => {
  it("any cell starting with = + - @ TAB CR LF NUL is neutralised, unless it is a plain number", () => {
    fc.assert(
      fc.property(fc.constantFrom(...LEADING), fc.string({ unit: "binary", maxLength: 40 }), (lead, rest) => {
        const cell = lead + rest
        const out = neutraliseFormula(cell)
        if (PLAIN_NUMBER.test(cell)) expect(out).toBe(cell)
        else expect(out).toBe(`'${cell}`)
        // Written and read back, the cell is what we meant to write, quote included.
        const line = escapeCell(cell)
        const parsed = Papa.parse<Array<string>>(`${line}\n`, { header: false, delimiter: "," }).data[0]
        expect(parsed).toEqual([out])
      }),
      { numRuns: 2_000 }
    )
  })

  it("numbers stay numbers: amounts, signed amounts, decimals, E.164 phones", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat().map(String),
          fc.integer({ min: -1e12, max: 1e12 }).map(String),
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 99 })).map(([a, b]) => `${a}.${String(b).padStart(2, "0")}`),
          fc.integer({ min: 100_000_000, max: 999_999_999 }).map((n) => `+237${n}`)
        ),
        (cell) => {
          expect(escapeCell(cell)).toBe(cell)
        }
      ),
      { numRuns: 1_000 }
    )
  })

  it.scopedLive("a batch with formula names: the ledger quotes them, amounts and phones stay numeric", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-sec-")
      const file = join(dir, "formula-names.csv")
      copyFileSync(join(ROOT, "test", "fixtures", "bad", "formula-names.csv"), file)
      const result = yield* run(sandbox, { file, state: join(dir, "state.db") })
      expect(result.exitCode).toBe(0)
      const ledger = Papa.parse<Record<string, string>>(readFileSync(join(dir, "formula-names.ledger.csv"), "utf8"), { header: true, skipEmptyLines: true }).data
      expect(ledger.map((r) => r.name)).toEqual(["'=HYPERLINK(\"http://evil.example\";\"x\")", "'+SUM(1;2)", "'-2+3", "'@cmd", "Tabbed"])
      for (const row of ledger) {
        expect(row.amount).toMatch(/^[0-9]+$/)
        expect(row.phone).toMatch(/^\+[0-9]+$/)
      }
      // The sandbox got the names as written: escaping is for our files only.
      expect((yield* admin(sandbox).payouts).length).toBe(5)
    })
  )
})

describe("secrets", () => {
  it.scopedLive("a refused-credentials run and a paid run: neither key nor secret in stdout, stderr, ledger, summary, errors or state", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ key: "key-7f3a9c1e55", secret: "secret-e4b1d0c9a7f2" })
      const dir = tempDir("payouts-sec-")
      const file = writeCsv(dir, "pay.csv", [
        { id: "A", amount: "1500", phone: ordinaryPhone(1) },
        { id: "B", amount: "x", phone: ordinaryPhone(2) }
      ])
      const state = join(dir, "state", "payouts.db")
      const base = { PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key }
      const runs = [
        yield* cli(["run", file, "--state", state, "--skip-invalid", "--poll-interval", "100ms", "--json"], { ...base, PAYOUTS_API_SECRET: "wrong-secret-91d2c7" }),
        yield* cli(["run", file, "--state", state, "--skip-invalid", "--poll-interval", "100ms", "--json"], { ...base, PAYOUTS_API_SECRET: sandbox.secret }),
        yield* cli(["wallet", "--json"], { ...base, PAYOUTS_API_SECRET: "wrong-secret-91d2c7" })
      ]
      expect(runs.map((r) => r.code)).toEqual([2, 1, 2])
      const secrets = [sandbox.key, sandbox.secret, "wrong-secret-91d2c7"]
      for (const r of runs) for (const s of secrets) expect(`${r.stdout}\n${r.stderr}`).not.toContain(s)
      const files = allFiles(dir)
      expect(files.map((f) => basename(f))).toEqual(expect.arrayContaining(["pay.ledger.csv", "pay.summary.json", "pay.errors.csv", "payouts.db"]))
      for (const f of files) for (const s of secrets) expect(readFileSync(f).includes(s), `${f} holds ${s}`).toBe(false)
    })
  )

  it.scopedLive("files holding personal data are owner-only: the state folder 0700, the database, its WAL, ledger, summary and report 0600", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-sec-")
      const file = writeCsv(dir, "perm.csv", [{ id: "A", amount: "1000", phone: ordinaryPhone(1) }])
      const state = join(dir, "jobs", ".state", "payouts.db")
      expect((yield* run(sandbox, { file, state })).exitCode).toBe(0)
      expect(statSync(dirname(state)).mode & 0o777).toBe(0o700)
      const dbFiles = readdirSync(dirname(state)).map((f) => join(dirname(state), f))
      expect(dbFiles.length).toBeGreaterThan(0)
      for (const f of dbFiles) expect([f, statSync(f).mode & 0o077]).toEqual([f, 0])
      for (const out of ["perm.ledger.csv", "perm.summary.json", "perm.report.html"]) {
        expect([out, statSync(join(dir, out)).mode & 0o077]).toEqual([out, 0])
      }
    })
  )
})

describe("webhook receiver", () => {
  it.scopedLive("forged, replayed and malformed bodies change no row: only the status lookup moves a row", () =>
    Effect.gen(function* () {
      // Payouts stay pending for an hour: any row that moves was moved by a lie.
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 3_600 })
      const dir = tempDir("payouts-sec-")
      const file = writeCsv(dir, "hooks.csv", [1, 2, 3].map((i) => ({ id: `W${i}`, amount: String(1000 * i), phone: ordinaryPhone(i) })))
      const state = join(dir, "state.db")
      const output = yield* recordingConsole
      const fiber = yield* Effect.fork(
        run(sandbox, { file, state, settings: { pollIntervalMs: 60_000, pollMaxMs: 60_000 }, request: { listen: { host: "127.0.0.1", port: 0 } } }).pipe(
          Effect.withConsole(output.console)
        )
      )
      // The receiver binds port 0 and says where it listens.
      const url = yield* until("the receiver's URL", Effect.sync(() => output.lines.map((l) => /listening at (http:\/\/\S+\/webhooks)/.exec(l)?.[1]).find((u) => u !== undefined)))
      const account = accountOf(sandbox)
      const batchId = yield* fileBatchId(file).pipe(Effect.provide(NodeContext.layer))
      const reader = yield* openStore(state)
      // Each payout's reference is in the store, so the run follows it: a webhook naming it makes a lookup.
      yield* until("the three references recorded", Effect.map(reader.store.batch(account, batchId).streamRows().pipe(Stream.runCollect, Effect.orDie), (rows) => [...rows].filter((r) => r.reference !== null).length === 3 || undefined))
      yield* reader.close
      const payouts = yield* admin(sandbox).payouts
      expect(payouts.length).toBe(3)
      const statusLookups = Effect.promise(async () => {
        const response = await fetch(`${sandbox.origin}/__sandbox/faults`, { headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret } })
        return ((await response.json()) as { counters: Record<string, number> }).counters["status.requests"] ?? 0
      })
      // Polls are a minute apart: until then, only a webhook makes the run look a payout up.
      expect(yield* statusLookups).toBe(0)
      const post = (body: string | ArrayBuffer, contentType = "application/json") =>
        Effect.promise(() => fetch(url, { method: "POST", headers: { "Content-Type": contentType }, body }).then((r) => r.status, () => -1))
      const [first] = payouts
      const forged = (reference: string, status: string) =>
        JSON.stringify({ id: `evt_${reference}_${status}`, event: `payout.${status}`, data: { reference, status, amount: 1, currency: "XAF" } })
      const statuses: Array<number> = []
      for (const p of payouts) {
        for (const status of ["completed", "failed", "cancelled", "refunded"]) statuses.push(yield* post(forged(p.reference, status)))
      }
      for (let i = 0; i < 20; i++) statuses.push(yield* post(forged(first.reference, "completed"))) // replayed
      const malformed: Array<string | ArrayBuffer> = [
        "",
        "not json",
        "{",
        "[]",
        "null",
        JSON.stringify({ data: { reference: 42 } }),
        JSON.stringify({ data: { reference: "x".repeat(10_000) } }),
        JSON.stringify({ data: { reference: "../../etc/passwd" } }),
        JSON.stringify({ data: { reference: "TXN'; DROP TABLE rows; --" } }),
        JSON.stringify({ event: "payout.completed" }),
        new Uint8Array([0xff, 0xfe, 0x00, 0x7b]).buffer,
        `{"data":{"reference":"${first.reference}"},"pad":"${"y".repeat(2_000_000)}"}`
      ]
      for (const body of malformed) statuses.push(yield* post(body))
      statuses.push(yield* post(forged(first.reference, "completed"), "text/plain"))
      // The run acted on the hints (one lookup per payout at least) before it is stopped and checked.
      yield* until("a status lookup for each payout", Effect.map(statusLookups, (n) => n >= 3 || undefined))
      yield* Fiber.interrupt(fiber)
      // The receiver answered every call (nothing crashed it) ...
      expect(statuses.filter((s) => s < 0)).toEqual([])
      // ... and every row still says what the service says: pending (or processing), none final.
      const sandboxStatus = new Map((yield* admin(sandbox).payouts).map((p) => [p.reference, p.status]))
      expect([...sandboxStatus.values()].every((s) => s === "pending" || s === "processing")).toBe(true)
      const { close, store } = yield* openStore(state)
      const rows = yield* store.batch(account, batchId).streamRows().pipe(Stream.runCollect)
      expect([...rows].map((r) => [r.state, sandboxStatus.get(r.reference ?? "")])).toEqual([...rows].map((r) => [r.state, r.state]))
      const events = yield* store.batch(account, batchId).events()
      expect(events.filter((e) => ["completed", "failed", "cancelled", "refunded"].includes(e.toState))).toEqual([])
      yield* close
      expect(readLedger(join(dir, "hooks.ledger.csv")).map((r) => r.status).every((s) => s === "pending" || s === "processing")).toBe(true)
    })
  )
})

describe("paths", () => {
  it("outputs derive from the input's base name: never outside the input's folder or --out", () => {
    const names = fc.oneof(
      fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes("/") && !s.includes("\u0000") && s !== "." && s !== ".."),
      fc.constantFrom("..csv", "...csv", "-rf.csv", ".hidden.csv", "a..b.csv", "%2e%2e%2fx.csv", "..\\..\\x.csv", "CON.csv", "x.CSV")
    )
    fc.assert(
      fc.property(names, fc.boolean(), (name, withOut) => {
        const input = join("/jobs/processing", name)
        const out = withOut ? "/jobs/done/run-1" : undefined
        const folder = out ?? dirname(input)
        for (const path of Object.values(outputPaths(input, out))) {
          expect(dirname(path)).toBe(folder)
          expect(resolve(folder, basename(path))).toBe(path)
        }
      }),
      { numRuns: 1_000 }
    )
  })

  it.scopedLive("paths written in CSV cells (description, meta) never become files", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-sec-")
      const inner = join(dir, "jobs")
      mkdirSync(inner)
      const file = join(inner, "paths.csv")
      const evil = ["../../escaped.csv", "/tmp/escaped-abs.csv", "..\\..\\escaped-win.csv"]
      const lines = ["id,amount,currency,operator,phone,name,email,description,meta.file"]
      evil.forEach((p, i) => lines.push(`P${i},${1000 + i},XAF,carrier1_cm,${ordinaryPhone(3 + i)},Name ${i},n${i}@example.com,${p},${p}`))
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(file, `${lines.join("\n")}\n`)
      expect((yield* run(sandbox, { file, state: join(dir, "state.db") })).exitCode).toBe(0)
      const written = allFiles(dir).map((f) => relative(dir, f))
      expect(written).toEqual(expect.arrayContaining(["jobs/paths.csv", "jobs/paths.ledger.csv", "jobs/paths.summary.json"]))
      expect(written.filter((f) => !f.startsWith("jobs/paths.") && !f.startsWith("state.db"))).toEqual([])
      expect(existsSync("/tmp/escaped-abs.csv")).toBe(false)
    })
  )
})
