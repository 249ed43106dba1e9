/**
 * File-drop safety (issue 6.5): a file still being written (growing, truncated and rewritten, or a
 * `*.part`) is never picked up by the watcher's arrival check; a kill during a ledger write leaves
 * the old ledger or the complete new one, never a torn file. Seeded: FILE_DROP_SEED=<n> replays.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { spawn } from "node:child_process"
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, truncateSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isTempFileOf } from "../../src/output/AtomicFile.ts"
import { makeArrivals } from "../../src/jobs/Arrivals.ts"
import { prng } from "../../scripts/soak.ts"
import { tempDir } from "../kit/TempDir.ts"

const child = join(import.meta.dirname, "support", "ledger-writer-child.ts")
const seed = Number(process.env.FILE_DROP_SEED ?? Date.now() % 100_000)
const ROWS = 20_000

/** Runs the writer, kills it after `ms` (or once it has renamed `minGen` versions), returns the last generation it reported. */
const writeThenKill = (path: string, ms: number, minGen: number) =>
  Effect.async<number, Error>((resume) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child, path, String(ROWS)], { stdio: ["ignore", "pipe", "pipe"] })
    let last = 0
    let armed = false
    let stderr = ""
    const timer = setTimeout(() => (armed = true), ms)
    proc.stdout.setEncoding("utf8").on("data", (t: string) => {
      last = Math.max(last, ...t.trim().split("\n").map(Number))
      if (armed && last >= minGen) proc.kill("SIGKILL")
    })
    proc.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
    const check = setInterval(() => {
      if (armed && last >= minGen) proc.kill("SIGKILL")
    }, 5)
    proc.on("exit", (_, signal) => {
      clearTimeout(timer)
      clearInterval(check)
      resume(signal === "SIGKILL" ? Effect.succeed(last) : Effect.fail(new Error(`writer ended: ${stderr}`)))
    })
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

const SETTLE_MS = 2_000
const T0 = 1_800_000_000_000

describe("file-drop safety", () => {
  it.effect(`a growing, truncated or *.part file is never ready while written, and is once it settles (seed ${seed})`, () =>
    Effect.gen(function* () {
      const random = prng(seed)
      for (let round = 0; round < 30; round++) {
        const dir = tempDir("payouts-arrivals-")
        const arrivals = yield* makeArrivals(SETTLE_MS)
        const viaPart = random() < 0.3
        const target = join(dir, "drop.csv")
        const path = viaPart ? `${target}.part` : target
        const chunks = 2 + Math.floor(random() * 10)
        let now = T0
        yield* TestClock.setTime(now)
        const touch = () => utimesSync(path, new Date(now), new Date(now))
        writeFileSync(path, "id,amount,currency,operator,phone,name,email\n")
        touch()
        for (let i = 0; i < chunks; i++) {
          // The writer pauses less than the settle time between writes; the watcher looks in between.
          const gap = Math.floor(random() * (SETTLE_MS - 1))
          const look = Math.floor(random() * gap)
          yield* TestClock.setTime(now + look)
          const seen = yield* arrivals.ready(dir)
          expect(seen.ready, `seed ${seed} round ${round} chunk ${i}`).toEqual([])
          now += gap
          yield* TestClock.setTime(now)
          if (random() < 0.15) truncateSync(path, 10) // rewritten from the start
          else appendFileSync(path, `R-${i},1000,XAF,carrier1_cm,+237677510001,Seller ${i},s${i}@example.com\n`)
          touch()
          expect((yield* arrivals.ready(dir)).ready, `seed ${seed} round ${round} chunk ${i}`).toEqual([])
        }
        if (viaPart) {
          now += SETTLE_MS * 3
          yield* TestClock.setTime(now)
          expect((yield* arrivals.ready(dir)).ready, `seed ${seed} round ${round}: a *.part file`).toEqual([])
          renameSync(path, target)
        }
        // Done: once size and mtime hold still for the settle time, it is ready.
        now += SETTLE_MS
        yield* TestClock.setTime(now)
        yield* arrivals.ready(dir)
        now += 100
        yield* TestClock.setTime(now)
        expect((yield* arrivals.ready(dir)).ready, `seed ${seed} round ${round}`).toEqual(["drop.csv"])
      }
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.live(`a SIGKILL during a ledger rewrite leaves the old ledger or the complete new one (seed ${seed})`, () =>
    Effect.gen(function* () {
      const random = prng(seed)
      const dir = tempDir("payouts-drop-")
      const path = join(dir, "batch.ledger.csv")
      for (let round = 0; round < 8; round++) {
        const reported = yield* writeThenKill(path, Math.floor(random() * 400), round === 0 ? 1 : 0)
        if (!existsSync(path)) {
          expect(reported, `seed ${seed} round ${round}`).toBe(0)
          continue
        }
        const lines = readFileSync(path, "utf8").split("\n")
        const gen = lines[1].split(",")[0]
        // Complete: header, every row of one generation, the end line; the generation is the last
        // one reported renamed, or the one being renamed at the kill.
        expect(lines.length, `seed ${seed} round ${round}`).toBe(ROWS + 3)
        expect(lines[ROWS + 1], `seed ${seed} round ${round}`).toBe(`end,${gen}`)
        expect(lines.slice(1, ROWS + 1).every((l) => l.startsWith(`${gen},`)), `seed ${seed} round ${round}`).toBe(true)
        expect(Number(gen) - reported, `seed ${seed} round ${round}`).toBeGreaterThanOrEqual(0)
        expect(Number(gen) - reported, `seed ${seed} round ${round}`).toBeLessThanOrEqual(1)
        // Whatever else a kill leaves is a temp file the next run recognises, never a second ledger.
        const others = readdirSync(dir).filter((f) => f !== "batch.ledger.csv")
        expect(others.filter((f) => !isTempFileOf(path, f)), `seed ${seed} round ${round}`).toEqual([])
      }
    }),
    120_000
  )
})
