import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { ACCOUNT, openStore, tempDbPath } from "./fixtures.ts"
import { BatchId } from "../../src/domain/Ids.ts"

const child = fileURLToPath(new URL("./crash-child.ts", import.meta.url))

/** Starts the child and SIGKILLs it once it has reported `atLeast` claimed rows; the last count it saw. */
const run = (filename: string, mode: "kill" | "race", total: number) =>
  spawn(process.execPath, ["--import", "tsx", child, filename, mode, String(total)], {
    stdio: ["ignore", "pipe", "pipe"]
  })

const claimThenKill = (filename: string, atLeast: number) =>
  Effect.async<number, Error>((resume) => {
    const proc = run(filename, "kill", 20_000)
    let last = 0
    let stderr = ""
    proc.stdout.setEncoding("utf8").on("data", (text: string) => {
      const counts = text.trim().split("\n").map(Number)
      last = Math.max(last, ...counts)
      if (last >= atLeast) proc.kill("SIGKILL")
    })
    proc.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    proc.on("exit", (_, signal) =>
      resume(signal === "SIGKILL" ? Effect.succeed(last) : Effect.fail(new Error(`child ended early: ${stderr}`)))
    )
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

const race = (filename: string, total: number) =>
  Effect.async<ReadonlyArray<number>, Error>((resume) => {
    const proc = run(filename, "race", total)
    let stdout = ""
    let stderr = ""
    proc.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    proc.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    proc.on("exit", (code) =>
      resume(code === 0 ? Effect.succeed(JSON.parse(stdout)) : Effect.fail(new Error(`child failed: ${stderr}`)))
    )
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

describe("two processes on one file", () => {
  it.live("create the same batch and claim it concurrently: every row claimed exactly once", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const [a, b] = yield* Effect.all([race(filename, 5_000), race(filename, 5_000)], { concurrency: 2 })
      const all = [...a, ...b]
      expect(all.length).toBe(5_000)
      expect(new Set(all).size).toBe(5_000)
      const { close, store } = yield* openStore(filename)
      expect((yield* store.batch(ACCOUNT, BatchId.make("crash")).countByState()).submitting).toBe(5_000)
      expect((yield* store.batch(ACCOUNT, BatchId.make("crash")).events()).length).toBe(5_000)
      yield* close
    }).pipe(Effect.scoped),
    60_000
  )
})

describe("a real crash", () => {
  it.live("SIGKILL while claiming: every reported claim survives, each with its event, none half-written", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const reported = yield* claimThenKill(filename, 700)
      const { close, store } = yield* openStore(filename)
      const counts = yield* store.batch(ACCOUNT, BatchId.make("crash")).countByState()
      expect(counts.submitting).toBeGreaterThanOrEqual(reported)
      expect(counts.submitting + counts.validated).toBe(20_000)
      const events = yield* store.batch(ACCOUNT, BatchId.make("crash")).events()
      expect(events.length).toBe(counts.submitting)
      const inDoubt = yield* store.batch(ACCOUNT, BatchId.make("crash")).rowsInStates(["submitting"], { limit: 20_000 })
      expect(inDoubt.every((row) => row.intentAt !== null && row.attempts === 1)).toBe(true)
      expect(inDoubt.map((row) => row.idx)).toEqual(Array.from({ length: counts.submitting }, (_, i) => i))
      yield* close
    }).pipe(Effect.scoped),
    60_000
  )
})
