/**
 * The bad-input corpus (test/fixtures/bad, made by its generate.ts): every file gets the verdict of
 * expected.json, with line, column and reason; nothing crashes; nothing is paid from a refused file.
 * CORPUS_PRINT=1 prints the verdicts as found (to review a new file's entry).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import Papa from "papaparse"
import { run } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

interface Expected {
  readonly verdict: "accepted" | "refused"
  /** Physical line of the first expected error; null for a problem of the whole file. */
  readonly line?: number | null
  readonly column?: string
  readonly reason?: string
}

const corpus = join(import.meta.dirname, "..", "fixtures", "bad")
const expected = JSON.parse(readFileSync(join(corpus, "expected.json"), "utf8")) as Record<string, Expected>
const files = readdirSync(corpus).filter((f) => f !== "expected.json" && f !== "generate.ts").sort()

const readErrors = (file: string) =>
  existsSync(file)
    ? Papa.parse<Record<string, string>>(readFileSync(file, "utf8"), { header: true, skipEmptyLines: true }).data
    : []

describe("bad-input corpus", () => {
  it("has at least 60 files, each with an expected verdict", () => {
    expect(files.length).toBeGreaterThanOrEqual(60)
    expect(files.filter((f) => expected[f] === undefined)).toEqual([])
    expect(Object.keys(expected).filter((f) => !files.includes(f))).toEqual([])
  })

  it.scopedLive(
    "every file: its verdict with line, column and reason; a refused file pays nothing",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const dir = tempDir("payouts-corpus-")
        const state = join(dir, "state.db")
        const found: Record<string, Expected> = {}
        const failures: Array<string> = []
        for (const name of files) {
          const file = join(corpus, name)
          const outDir = join(dir, name)
          mkdirSync(outDir)
          const checked = yield* run(sandbox, { file, state, request: { outDir, dryRun: true } })
          const errors = readErrors(join(outDir, `${name.replace(/\.csv$/, "")}.errors.csv`))
          const first = errors[0]
          const verdict: Expected =
            checked.exitCode === 0
              ? { verdict: "accepted" }
              : { verdict: "refused", line: first?.line ? Number(first.line) : null, column: first?.column ?? "", reason: first?.reason ?? "" }
          found[name] = verdict
          const want = expected[name]
          if (want === undefined) continue
          if (![0, 2].includes(checked.exitCode)) failures.push(`${name}: validate exit ${checked.exitCode}`)
          if (want.verdict !== verdict.verdict) {
            failures.push(`${name}: ${verdict.verdict}, expected ${want.verdict} (${first?.reason ?? ""})`)
            continue
          }
          if (want.verdict === "accepted") continue
          const hit = errors.some(
            (e) =>
              (want.line === undefined || (want.line === null ? e.line === "" : Number(e.line) === want.line)) &&
              (want.column === undefined || e.column === want.column) &&
              (want.reason === undefined || e.reason.toLowerCase().includes(want.reason.toLowerCase()))
          )
          if (!hit) failures.push(`${name}: no error at line ${want.line} column "${want.column}" with "${want.reason}"; got ${JSON.stringify(errors.slice(0, 3))}`)
          if (errors.some((e) => e.reason.trim() === "")) failures.push(`${name}: an error without a reason`)
          // A real run of a refused file is refused too, and pays nothing.
          const paid = yield* run(sandbox, { file, state, request: { outDir } })
          if (paid.exitCode !== 2) failures.push(`${name}: run exit ${paid.exitCode}, expected 2`)
        }
        if (process.env.CORPUS_PRINT === "1") console.log(JSON.stringify(found, null, 2))
        expect(failures).toEqual([])
        expect(yield* admin(sandbox).payouts).toEqual([])
      }),
    120_000
  )
})
