/**
 * `payouts watch --log-format json` through the real CLI: the run's own messages (a refusal's errors
 * and verdict, the rows --skip-invalid leaves out) carry the batch and the file as fields, and a
 * refusal its exit code and counts, as the watcher's end-of-job lines do, so a log pipeline can
 * follow one batch without reading the text.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const records = (output: string): Array<Record<string, unknown>> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>)

const startsWith = (prefix: string) => (r: Record<string, unknown>) => String(r.message).startsWith(prefix)

describe("the run's messages in the watcher's JSON log", () => {
  it.scopedLive("a refused file's errors and verdict, and --skip-invalid's rejected rows, name the batch and the file as fields", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-runjson-")
      const root = join(base, "jobs")
      const state = join(base, "state.db")
      mkdirSync(root, { recursive: true })
      const processing = (name: string) => join(root, "processing", name)
      writeCsv(root, "bad.csv", [
        { id: "B-1", amount: "abc", phone: ordinaryPhone(1) },
        { id: "B-2", amount: "1000", phone: ordinaryPhone(2) }
      ])
      const refused = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--state", state, "--log-format", "json", ...FAST])
      expect(refused.code, refused.output).toBe(0)
      const lines = records(refused.output)
      const rejected = lines.find(startsWith("rejected"))
      expect(rejected, refused.output).toBeDefined()
      const verdict = lines.find(startsWith("Refused: nothing was paid."))
      const errors = lines.find((r) => String(r.message).includes("column \"amount\""))
      for (const record of [verdict, errors]) {
        expect(record, refused.output).toMatchObject({ batch_id: rejected!.batch_id, file: processing("bad.csv"), exit_code: 2, counts: { rejected: 2 } })
      }

      writeCsv(root, "mixed.csv", [
        { id: "M-1", amount: "1000", phone: ordinaryPhone(3) },
        { id: "M-2", amount: "12.5", phone: ordinaryPhone(4) },
        { id: "M-3", amount: "1500", phone: ordinaryPhone(5) }
      ])
      const paid = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--skip-invalid", "--state", state, "--log-format", "json", ...FAST])
      expect(paid.code, paid.output).toBe(0)
      const done = records(paid.output).find(startsWith("done"))
      expect(done, paid.output).toBeDefined()
      expect(done!.batch_id).not.toBe(rejected!.batch_id)
      const kept = records(paid.output).find(startsWith("1 invalid rows kept as rejected"))
      expect(kept, paid.output).toMatchObject({ batch_id: done!.batch_id, file: processing("mixed.csv") })
      // Only the refusal's records say how it ended; a message in the middle of a run does not.
      expect(kept).not.toHaveProperty("exit_code")
    }), 180_000)
})
