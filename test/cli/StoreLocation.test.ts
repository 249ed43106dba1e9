/**
 * One store, found the same way from anywhere (issue 11, DESIGN 7): the per-user default, a watched
 * folder's pinned store used by every command about a file in it, another store refused, and the
 * binary paying nothing twice from another working directory or through `watch` and `run` on one folder.
 */
import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Stream } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { defaultStorePath, storeFor, storeForWatch, watchedFolderOf } from "../../src/cli/StoreLocation.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = join(ROOT, "bin", "payouts.js")
const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

const cli = (sandbox: Sandbox, cwd: string, env: Record<string, string>, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { PAYOUTS_STATE: _drop, ...inherited } = process.env
    const full = { ...inherited, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, NO_COLOR: "1", ...env }
    const proc = yield* Process.start(Process.make("node", BIN, ...args).pipe(Process.workingDirectory(cwd), Process.env(full)))
    const [stdout, stderr, code] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], { concurrency: "unbounded" })
    return { code: Number(code), stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(4000 + i), phone: ordinaryPhone(600 + i) }))

describe("where the state store lives", () => {
  it("defaults to $XDG_STATE_HOME/payouts/payouts.db, else ~/.local/state/payouts/payouts.db", () => {
    expect(defaultStorePath({ XDG_STATE_HOME: "/x/state" })).toBe("/x/state/payouts/payouts.db")
    expect(defaultStorePath({ XDG_STATE_HOME: "" })).toMatch(/\/\.local\/state\/payouts\/payouts\.db$/)
  })

  it.effect("a watched folder pins its store; files under it use it; another store is refused", () =>
    Effect.gen(function* () {
      const root = tempDir("payouts-pin-")
      const jobs = join(root, "jobs")
      mkdirSync(join(jobs, "processing"), { recursive: true })
      const chosen = join(root, "chosen.db")
      expect(yield* storeForWatch(Option.some(chosen), jobs)).toBe(chosen)
      expect(readFileSync(join(jobs, ".state", "store"), "utf8").trim()).toBe(chosen)
      // Again without --state: the pin answers. With another: refused.
      expect(yield* storeForWatch(Option.none(), jobs)).toBe(chosen)
      expect(Either.isLeft(yield* Effect.either(storeForWatch(Option.some(join(root, "other.db")), jobs)))).toBe(true)
      // A file in the folder (or in processing/) finds the same store from anywhere.
      const file = join(jobs, "processing", "x.csv")
      writeFileSync(file, "id\n")
      expect(watchedFolderOf(file)).toEqual({ dir: resolve(jobs), store: chosen })
      expect(yield* storeFor(Option.none(), file)).toBe(chosen)
      const refused = yield* Effect.either(storeFor(Option.some(join(root, "other.db")), file))
      expect(Either.isLeft(refused) && refused.left.reason).toContain("watched folder")
      // A file elsewhere: --state, else the per-user default.
      expect(yield* storeFor(Option.some(join(root, "mine.db")), join(root, "elsewhere.csv"))).toBe(join(root, "mine.db"))
    })
  )

  it.scopedLive(
    "the same file from another working directory, and run + watch on one folder: nothing paid twice",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-home-")
        const env = { XDG_STATE_HOME: join(home, "state") }
        const fast = ["--poll-interval", "100ms", "--poll-max", "300ms", "--lease-ttl", "3s"]
        const a = tempDir("payouts-cwd-a-")
        const b = tempDir("payouts-cwd-b-")
        const file = writeCsv(a, "cwd.csv", sellers(6, "W"))
        const first = yield* cli(sandbox, a, env, ["run", file, ...fast])
        expect(first.code, first.stderr).toBe(0)
        expect(first.stderr).toContain(`State store: ${join(home, "state", "payouts", "payouts.db")}`)
        // Another working directory, the same per-user store: the batch is done, nothing is paid.
        const again = yield* cli(sandbox, b, env, ["run", file, ...fast])
        expect(again.code, again.stderr).toBe(0)
        expect((yield* admin(sandbox).payouts).length).toBe(6)

        // run and watch on one folder: watch pins its store; run of a file there uses it.
        const jobs = join(tempDir("payouts-folder-"), "jobs")
        mkdirSync(jobs, { recursive: true })
        const pinned = join(tempDir("payouts-pinned-"), "jobs.db")
        writeCsv(jobs, "drop.csv", sellers(5, "D"))
        const watched = yield* cli(sandbox, b, env, ["watch", jobs, "--once", "--settle", "0s", "--state", pinned, ...fast])
        expect(watched.code, watched.stdout + watched.stderr).toBe(0)
        const done = join(jobs, "done", "drop.csv")
        const rerun = yield* cli(sandbox, a, env, ["run", done, ...fast])
        expect(rerun.code, rerun.stderr).toBe(0)
        expect(rerun.stderr).toContain(`State store: ${pinned}`)
        const batches = yield* cli(sandbox, a, env, ["batches", "--jobs", jobs, "--json"])
        expect(JSON.parse(batches.stdout).length).toBe(1)
        // Every row final: the batch is listed done, not open.
        expect(JSON.parse(batches.stdout)[0].state).toBe("done")
        const counts = countByToken(yield* admin(sandbox).payouts)
        expect(counts.size).toBe(11)
        expect([...counts.values()].every((n) => n === 1)).toBe(true)
      }),
    120_000
  )
})
