import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type Browser, chromium } from "playwright-core"
import { ordinaryPhone, run, startSandbox, tempDir, writeCsv } from "../run/support.ts"

const CHROMIUM = "/usr/bin/chromium"
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
const TEST = { failure: "+237670000002", cancelled: "+237670000004" }

const browser = Effect.acquireRelease(
  Effect.gen(function* () {
    if (!existsSync(CHROMIUM)) return yield* Effect.die(new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium); this test does not skip.`))
    return yield* Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, args: ARGS }))
  }),
  (b: Browser) => Effect.promise(() => b.close())
)

describe("the HTML report", () => {
  it.scopedLive("is one self-contained file whose figures match the summary, in headless Chromium", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const rows = [
        ...Array.from({ length: 8 }, (_, i) => ({ id: `A${i}`, amount: String(5000 + i), phone: ordinaryPhone(i) })),
        ...Array.from({ length: 3 }, (_, i) => ({ id: `B${i}`, amount: String(700 + i), operator: "carrier2_cm", phone: ordinaryPhone(20 + i) })),
        { id: "F1", amount: "900", phone: TEST.failure },
        { id: "C1", amount: "901", operator: "carrier2_cm", phone: TEST.cancelled }
      ]
      const file = writeCsv(dir, "report.csv", rows)
      expect((yield* run(sandbox, { file, state: join(dir, "state.db") })).exitCode).toBe(1)
      const summary = JSON.parse(readFileSync(join(dir, "report.summary.json"), "utf8"))
      const html = readFileSync(join(dir, "report.report.html"), "utf8")
      expect(summary.report).toBe(join(dir, "report.report.html"))
      expect(html).not.toMatch(/<script|<link|src=|url\(|https?:\/\//)

      const b = yield* browser
      const page = yield* Effect.acquireRelease(Effect.promise(() => b.newPage({ viewport: { width: 1200, height: 900 } })), (p) => Effect.promise(() => p.close()))
      const requests: Array<string> = []
      page.on("request", (r) => requests.push(r.url()))
      yield* Effect.promise(() => page.goto(pathToFileURL(join(dir, "report.report.html")).href))
      const seen = yield* Effect.promise(() =>
        page.evaluate(() => ({
          statuses: Object.fromEntries(Array.from(document.querySelectorAll("[data-status]")).map((e) => [e.getAttribute("data-status"), Number(e.getAttribute("data-count"))])),
          totals: Array.from(document.querySelectorAll("[data-table=totals] tbody tr")).map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent)),
          operators: Object.fromEntries(Array.from(document.querySelectorAll("[data-operator]")).map((e) => [e.getAttribute("data-operator"), Number(e.getAttribute("data-rate"))])),
          failed: document.querySelectorAll("[data-table=failed] tbody tr").length,
          bins: document.querySelectorAll("[data-bin]").length,
          batch: document.querySelector("[data-field=batch_id]")?.textContent
        }))
      )
      expect(seen.statuses).toEqual(summary.counts)
      expect(seen.totals).toEqual(
        Object.entries(summary.totals).map(([c, t]: [string, any]) => [c, String(t.rows), t.amount, t.completed_amount, t.fees, t.fees_estimated])
      )
      // 13 rows sent, each estimated at max(2%, 50 XAF): the estimate beside the fees charged.
      expect(summary.totals.XAF.fees_estimated).toBe("1057")
      expect(seen.operators).toEqual({ carrier1_cm: 89, carrier2_cm: 75 })
      expect(seen.failed).toBe(2)
      expect(seen.bins).toBe(8)
      expect(seen.batch).toBe(summary.batch_id)
      expect(requests.filter((u) => !u.startsWith("file:"))).toEqual([])
      const out = resolve("test-output")
      mkdirSync(out, { recursive: true })
      yield* Effect.promise(() => page.screenshot({ path: join(out, "payout-report.png"), fullPage: true }))
      expect(existsSync(join(out, "payout-report.png"))).toBe(true)
    })
  )
})
