/**
 * A batch's page links the summary and report its run wrote (issue 34): a real `payouts watch --once`
 * pays a file into the job folder's done/; the console over that folder links and serves both, the
 * report with its own style allowed; a batch it does not hold says where its outputs are.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { signIn, startConsole, textOf } from "./consoleSupport.ts"

describe("console: a batch's summary and report", () => {
  it.scopedLive("found in the job folder by the batch id their summary names, and served", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-console-files-")
      const root = join(base, "jobs")
      mkdirSync(root, { recursive: true })
      const state = join(base, "state.db")
      writeCsv(root, "weekly.csv", [{ id: "W-1", amount: "1500", phone: ordinaryPhone(31) }, { id: "W-2", amount: "2500", phone: ordinaryPhone(32) }])
      const watched = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--state", state, ...FAST])
      expect(watched.code, watched.output).toBe(0)

      const konsole = yield* startConsole(sandbox, { state, jobs: root })
      yield* konsole.addUser("vic", "viewer")
      const vic = yield* signIn(konsole.url, "vic")
      const list = yield* vic.get("/batches")
      const id = /href="\/batches\/([0-9a-f]+)"/.exec(list.body)?.[1] ?? ""
      expect(id).not.toBe("")
      const page = yield* vic.get(`/batches/${id}`)
      expect(textOf(page.body)).toContain("As its run wrote them: summary (JSON) · report")
      const summary = yield* vic.get(`/batches/${id}/summary`)
      expect(summary.status).toBe(200)
      expect(JSON.parse(summary.body).batch_id).toBe(id)
      const report = yield* vic.get(`/batches/${id}/report`)
      expect(report.status).toBe(200)
      expect(report.headers.get("content-security-policy")).toContain("style-src 'unsafe-inline'")
      expect(report.body).toContain("weekly")
      expect((yield* vic.get("/batches/0123456789abcdef/report")).status).toBe(404)

      const elsewhere = yield* startConsole(sandbox, { state })
      const vicThere = yield* signIn(elsewhere.url, "vic")
      expect(vicThere.answer.status).toBe(303)
      expect(textOf((yield* vicThere.get(`/batches/${id}`)).body)).toContain("beside the file it was run from")
    }))
})
