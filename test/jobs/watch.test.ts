import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, existsSync, lstatSync, readlinkSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST, payoutsDone, serviceOf } from "./cli.ts"
import { layersFor, stateIn, watcherFor } from "./support.ts"

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) }))

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])

const jobsRoot = () => {
  const root = join(tempDir("payouts-jobs-"), "jobs")
  mkdirSync(root, { recursive: true })
  return root
}

describe("payouts watch: the job folder", () => {
  it.scopedLive("pays a dropped file and moves it with ledger, summary and report to done/; an invalid one goes to rejected/ with its errors", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot()
      mkdirSync(join(root, "examples"))
      writeCsv(root, "good.csv", sellers(5, "G"))
      writeCsv(root, "bad.csv", [...sellers(2, "B"), { id: "X", amount: "-5", phone: ordinaryPhone(9) }])
      writeCsv(join(root, "examples"), "sample.csv", sellers(2, "E"))
      writeFileSync(join(root, ".hidden.csv"), "id,amount\n")
      writeFileSync(join(root, "notes.txt"), "not a batch")
      // A symlink named like a batch (here to a secrets file) is never taken: regular files only.
      writeFileSync(join(root, "..", "prod.env"), "PAYOUTS_API_SECRET=do-not-leak\n")
      symlinkSync(join(root, "..", "prod.env"), join(root, "env.csv"))
      yield* Effect.gen(function* () {
        const watcher = yield* watcherFor(sandbox, { root })
        yield* watcher.scan
        yield* watcher.idle
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      expect(ls(join(root, "done"))).toEqual(["good.csv", "good.ledger.csv", "good.report.html", "good.summary.json"])
      expect(ls(join(root, "rejected"))).toEqual(["bad.csv", "bad.errors.csv", "bad.summary.json"])
      expect(ls(join(root, "processing"))).toEqual([])
      expect(ls(join(root, "examples"))).toEqual(["sample.csv"])
      expect(existsSync(join(root, ".hidden.csv")) && existsSync(join(root, "notes.txt"))).toBe(true)
      expect(lstatSync(join(root, "env.csv")).isSymbolicLink()).toBe(true)
      const summary = JSON.parse(readFileSync(join(root, "done", "good.summary.json"), "utf8"))
      expect(summary.counts).toEqual({ completed: 5 })
      expect(summary.ledger).toBe(join(root, "done", "good.ledger.csv"))
      expect(summary.report).toBe(join(root, "done", "good.report.html"))
      expect(readLedger(join(root, "done", "good.ledger.csv")).map((r) => r.status)).toEqual(Array(5).fill("completed"))
      expect(readFileSync(join(root, "rejected", "bad.errors.csv"), "utf8")).toMatch(/^line,column,value,reason\n4,amount,/)
      expect(JSON.parse(readFileSync(join(root, "rejected", "bad.summary.json"), "utf8")).errors_file).toBe(join(root, "rejected", "bad.errors.csv"))
      expect((yield* admin(sandbox).payouts).length).toBe(5)
    })
  )

  it.scopedLive("a half-written file is not picked up until complete: *.part until renamed, a fresh *.csv until it settles", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot()
      yield* Effect.gen(function* () {
        // Ages are set with utimes, far from the settle time, so no look depends on how fast the machine is.
        const watcher = yield* watcherFor(sandbox, { root, settleMs: 60_000 })
        const part = writeCsv(root, "slow.csv.part", sellers(2, "P"))
        const old = Date.now() / 1000 - 600
        utimesSync(part, old, old)
        writeFileSync(join(root, "growing.csv"), "id,amount,currency,operator,phone,name,email\n")
        yield* watcher.scan
        yield* watcher.idle
        expect(ls(join(root, "processing"))).toEqual([])
        expect(ls(root)).toContain("growing.csv")
        // still being written: it changes between two looks (old enough, yet not taken: it changed)
        writeFileSync(join(root, "growing.csv"), readFileSync(writeCsv(tempDir(), "g.csv", sellers(3, "W"))))
        utimesSync(join(root, "growing.csv"), old, old)
        renameSync(part, join(root, "slow.csv"))
        utimesSync(join(root, "slow.csv"), old, old)
        yield* watcher.scan
        yield* watcher.idle
        expect(ls(join(root, "done"))).toContain("slow.csv")
        expect(ls(root)).toContain("growing.csv")
        yield* watcher.scan
        yield* watcher.idle
        expect(ls(join(root, "done"))).toContain("growing.csv")
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      expect(countByToken(yield* admin(sandbox).payouts).size).toBe(5)
    })
  )

  it.scopedLive("the same content dropped twice (even under another name) is recognised and paid once", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot()
      const source = writeCsv(tempDir(), "payroll.csv", sellers(6, "D"))
      yield* Effect.gen(function* () {
        const watcher = yield* watcherFor(sandbox, { root })
        copyFileSync(source, join(root, "payroll.csv"))
        copyFileSync(source, join(root, "payroll-copy.csv"))
        yield* watcher.scan
        yield* watcher.idle
        copyFileSync(source, join(root, "payroll.csv"))
        yield* watcher.scan
        yield* watcher.idle
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      const done = ls(join(root, "done")).filter((n) => n.endsWith(".summary.json"))
      // The re-drop keeps its name but for its arrival time: done/ holds the earlier payroll.csv.
      expect(done).toHaveLength(3)
      expect([done[0], done[2]]).toEqual(["payroll-copy.summary.json", "payroll.summary.json"])
      expect(done[1]).toMatch(/^payroll\.\d{8}-\d{6}Z\.summary\.json$/)
      const ids = done.map((n) => JSON.parse(readFileSync(join(root, "done", n), "utf8")).batch_id)
      expect(new Set(ids).size).toBe(1)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(6)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    })
  )

  it.scopedLive("through the real watch: a symlink jobs/env.csv to a secrets file is never taken, and the secret is in no file we write and not in the output", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-symlink-")
      const root = join(base, "jobs")
      mkdirSync(root, { recursive: true })
      const secret = `leak-${Date.now().toString(36)}-do-not-copy`
      const secretsFile = join(base, "prod.env")
      writeFileSync(secretsFile, `PAYOUTS_API_SECRET=${secret}\nid,amount\n1,${secret}\n`)
      symlinkSync(secretsFile, join(root, "env.csv"))
      writeCsv(root, "good.csv", sellers(2, "S"))
      const run = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--state", join(base, "state.db"), ...FAST])
      expect(run.code).toBe(0)
      expect(ls(join(root, "done"))).toContain("good.csv")
      expect(lstatSync(join(root, "env.csv")).isSymbolicLink()).toBe(true)
      expect(readlinkSync(join(root, "env.csv"))).toBe(secretsFile)
      expect(run.output).not.toContain(secret)
      // Every regular file under the folder (and the store beside it), except the secrets file itself.
      const written = (dir: string): Array<string> =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? written(join(dir, e.name)) : e.isFile() && join(dir, e.name) !== secretsFile ? [join(dir, e.name)] : []
        )
      const files = written(base)
      expect(files.some((f) => f.endsWith("good.ledger.csv"))).toBe(true)
      expect(files.filter((f) => readFileSync(f).includes(secret))).toEqual([])
    }),
    120_000
  )
})
