import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type Browser, chromium } from "playwright-core"
import { formatFor, numberLocale } from "../../src/output/Format.ts"
import { cli, FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

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
      const f = formatFor(yield* numberLocale)
      expect(seen.totals).toEqual(
        Object.entries(summary.totals).map(([c, t]: [string, any]) => [c, String(t.rows), f.decimal(t.amount), f.decimal(t.completed_amount), f.decimal(t.fees), f.decimal(t.fees_estimated)])
      )
      // 13 rows sent, each estimated at max(2%, 50 XAF): the estimate beside the fees charged.
      expect(summary.totals.XAF.fees_estimated).toBe("1057")
      expect(seen.operators).toEqual({ carrier1_cm: 89, carrier2_cm: 75 })
      expect(seen.failed).toBe(1)
      expect(seen.bins).toBe(8)
      expect(seen.batch).toBe(summary.batch_id)
      expect(requests.filter((u) => !u.startsWith("file:"))).toEqual([])
      const out = resolve("test-output")
      mkdirSync(out, { recursive: true })
      yield* Effect.promise(() => page.screenshot({ path: join(out, "payout-report.png"), fullPage: true }))
      expect(existsSync(join(out, "payout-report.png"))).toBe(true)
    })
  )

  it.scopedLive(
    "through the real CLI: the user's separators, readable times, each failed row's reference and reason, the amount to pay again per currency, the rejected and skipped rows",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ fund: { XAF: 50_000_000, XOF: 100_000 } })
        const dir = tempDir()
        const file = writeCsv(dir, "finance.csv", [
          { id: "A1", amount: "1234567", phone: ordinaryPhone(1) },
          { id: "A2", amount: "250000", phone: ordinaryPhone(2) },
          { id: "F1", amount: "1500000", phone: TEST.failure },
          { id: "C1", amount: "2000000", operator: "carrier2_cm", phone: TEST.cancelled },
          { id: "R1", amount: "12.5", phone: ordinaryPhone(3) },
          { id: "X1", amount: "30000", currency: "XOF", operator: "carrier1_ci", phone: "+2250700000001" },
          { id: "X2", amount: "90000", currency: "XOF", operator: "carrier1_ci", phone: "+2250700000001" }
        ])
        // French separators: a narrow no-break space between thousands, a comma before decimals.
        const env = { LC_ALL: "", LC_NUMERIC: "", LANG: "fr_FR.UTF-8" }
        const done = yield* cli(sandbox, join(dir, "state.db"), ["run", file, ...FAST, "--skip-invalid", "--on-insufficient", "partial"], env)
        expect(done.code, done.stderr).toBe(1)
        const ledger = readLedger(join(dir, "finance.ledger.csv"))
        const byId = Object.fromEntries(ledger.map((r) => [r.id, r]))
        expect([byId.F1.status, byId.C1.status, byId.R1.status, byId.X2.status]).toEqual(["failed", "cancelled", "rejected", "skipped"])
        const summary = JSON.parse(readFileSync(join(dir, "finance.summary.json"), "utf8"))
        expect(summary.totals.XAF.amount).toBe("4984567")

        const b = yield* browser
        const page = yield* Effect.acquireRelease(Effect.promise(() => b.newPage({ viewport: { width: 1200, height: 900 } })), (p) => Effect.promise(() => p.close()))
        yield* Effect.promise(() => page.goto(pathToFileURL(join(dir, "finance.report.html")).href))
        const rowsOf = (name: string) =>
          page.evaluate(
            (n) => Array.from(document.querySelectorAll(`[data-table=${n}] tbody tr`)).map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? "")),
            name
          )
        const head = (name: string) => page.evaluate((n) => Array.from(document.querySelectorAll(`[data-table=${n}] thead th`)).map((th) => th.textContent), name)
        // Failed and cancelled counted and listed apart, each with its recipient's name (issue 31 item 6).
        const failedHead = yield* Effect.promise(() => head("failed"))
        const cell = (row: ReadonlyArray<string>, column: string) => row[failedHead.indexOf(column)]
        const failedById = Object.fromEntries(
          [...(yield* Effect.promise(() => rowsOf("failed"))), ...(yield* Effect.promise(() => rowsOf("cancelled")))].map((r) => [cell(r, "id"), r])
        )
        expect((yield* Effect.promise(() => rowsOf("failed"))).map((r) => cell(r, "id"))).toEqual(["F1"])
        expect((yield* Effect.promise(() => rowsOf("cancelled"))).map((r) => cell(r, "id"))).toEqual(["C1"])
        const headings = yield* Effect.promise(() => page.evaluate(() => Array.from(document.querySelectorAll("h2")).map((h) => h.textContent ?? "")))
        expect(headings).toContain("Failed rows (1)")
        expect(headings).toContain("Cancelled rows (1)")
        expect(yield* Effect.promise(() => page.evaluate(() => document.querySelector("[data-card=failed] b")?.textContent))).toBe("1")
        for (const id of ["F1", "C1"]) {
          expect(cell(failedById[id], "name")).toBe(byId[id].name)
          expect(cell(failedById[id], "name")).not.toBe("")
          expect(cell(failedById[id], "reference")).toBe(byId[id].reference)
          expect(cell(failedById[id], "reference")).not.toBe("")
          expect(cell(failedById[id], "reason")).toBe(byId[id].error)
          expect(cell(failedById[id], "reason")).not.toBe("")
        }
        expect(cell(failedById.F1, "amount")).toBe("1\u202f500\u202f000 XAF")
        // Failed 1,500,000 + cancelled 2,000,000 XAF; nothing of XOF failed.
        expect(yield* Effect.promise(() => rowsOf("repay"))).toEqual([["XAF", "2", "3\u202f500\u202f000 XAF"]])
        const unpaid = yield* Effect.promise(() => rowsOf("unpaid"))
        const unpaidHead = yield* Effect.promise(() => head("unpaid"))
        const u = (row: ReadonlyArray<string>, column: string) => row[unpaidHead.indexOf(column)]
        expect(unpaid.map((r) => [u(r, "id"), u(r, "status"), u(r, "name")]).sort()).toEqual([["R1", "rejected", byId.R1.name], ["X2", "skipped", byId.X2.name]])
        expect(u(unpaid.find((r) => u(r, "id") === "R1") ?? [], "reason")).toContain("whole number")

        // What the wallet gave: amounts completed plus fees charged (the sandbox's 1%, rounded up).
        const fr = formatFor("fr-FR")
        expect(yield* Effect.promise(() => rowsOf("debited"))).toEqual([
          ["XAF", `${fr.minor(1_484_567, "XAF")} XAF`, `${fr.minor(14_846, "XAF")} XAF`, `${fr.minor(1_499_413, "XAF")} XAF`],
          ["XOF", `${fr.minor(30_000, "XOF")} XOF`, `${fr.minor(300, "XOF")} XOF`, `${fr.minor(30_300, "XOF")} XOF`]
        ])
        // No approval in a plain run: said, not left blank; the user and machine that ran it.
        const people = yield* Effect.promise(() =>
          page.evaluate(() => ["approved_by", "submitted_by", "run_by"].map((f) => document.querySelector(`[data-field=${f}]`)?.textContent))
        )
        expect(people.slice(0, 2)).toEqual(["none recorded", "none recorded"])
        expect(people[2]).toMatch(/^.+@.+$/)

        // The rows not paid, ready to fix: linked, beside the report, owner-only, in the input's columns.
        const link = yield* Effect.promise(() => page.evaluate(() => document.querySelector("a[data-link=unpaid-csv]")?.getAttribute("href")))
        expect(link).toBe("finance.unpaid.csv")
        const fixFile = join(dir, "finance.unpaid.csv")
        expect(statSync(fixFile).mode & 0o777).toBe(0o600)
        const fix = readFileSync(fixFile, "utf8").trimEnd().split("\n").map((l) => l.split(","))
        expect(fix[0]).toEqual(["id", "amount", "currency", "operator", "phone", "name", "email", "description"])
        // The rows `payouts retry --fix` takes: settled unpaid by the service; rejected and skipped go in a new file.
        expect(fix.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[4], r[5]])).toEqual(
          ["F1", "C1"].map((id) => [id, byId[id].amount, byId[id].currency, byId[id].operator, byId[id].phone, byId[id].name])
        )
        // Ready to fix as it is: the phones corrected, it is paid again by retry --fix, once.
        writeFileSync(fixFile, readFileSync(fixFile, "utf8").replace(TEST.failure, ordinaryPhone(41)).replace(TEST.cancelled, ordinaryPhone(42)))
        const fixed = yield* cli(sandbox, join(dir, "state.db"), ["retry", summary.batch_id, "--fix", fixFile, ...FAST], env)
        expect(fixed.code, fixed.stderr).toBe(0)
        const repaid = (yield* admin(sandbox).payouts).filter((p) => [ordinaryPhone(41), ordinaryPhone(42)].includes(p.phoneNumber ?? p.phone ?? ""))
        expect(repaid.map((p) => p.amount).sort()).toEqual([1_500_000, 2_000_000])
        const totals = yield* Effect.promise(() => rowsOf("totals"))
        expect(totals.find((r) => r[0] === "XAF")?.[2]).toBe("4\u202f984\u202f567")
        const operators = yield* Effect.promise(() => rowsOf("operators"))
        expect(yield* Effect.promise(() => head("operators"))).toEqual(["operator", "sent", "completed", "failed", "cancelled", "expired"])
        expect(operators.find((r) => r[0] === "carrier2_cm")?.slice(3)).toEqual(["0", "1", "0"])
        const times = yield* Effect.promise(() =>
          page.evaluate(() => [document.querySelector("[data-field=started_at]")?.textContent, document.querySelector("[data-field=finished_at]")?.textContent])
        )
        for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
      })
  )
})
