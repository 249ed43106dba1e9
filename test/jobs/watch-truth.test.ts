/**
 * `payouts watch` reads true (issue 31 item 9), through the real binary: health counts follow the
 * folder (an approval given by another process shows), the schedule's times are shown in its zone,
 * a re-dropped file keeps its name (or says why it cannot), and every line is in the one format
 * `--log-format` chose, with no fiber ids.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST, healthUrl, payouts, payoutsDone, serviceOf, until } from "./cli.ts"

const sellers = (n: number, prefix: string, offset = 0) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(offset + i) }))

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])

const jobsRoot = (prefix: string) => {
  const root = join(tempDir(prefix), "jobs")
  mkdirSync(root, { recursive: true })
  return root
}

const lines = (output: string) => output.split("\n").filter((line) => line.trim() !== "")

/** A text log line: `TIME LEVEL message ...`. */
const TEXT_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) +\S/

const getJson = (url: string) => Effect.promise(() => fetch(url).then(async (r) => (await r.json()) as Record<string, unknown>))

describe("payouts watch reads true", () => {
  it.scopedLive("health counts follow the folder: approved and paid, the batch no longer counts as awaiting approval", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot("payouts-truth-counts-")
      const state = join(root, "..", "state.db")
      const env = { PAYOUTS_STATE: state }
      const daemon = yield* payouts(serviceOf(sandbox), ["watch", root, ...FAST, "--require-approval", "--health", "127.0.0.1:0"], env)
      const url = yield* healthUrl(() => daemon.stdout() + daemon.stderr())
      writeCsv(root, "week48.csv", sellers(3, "C"))
      yield* until("the batch awaiting approval in health", Effect.map(getJson(url), (h) => h.awaiting_approval === 1), 60_000)
      const approval = JSON.parse(readFileSync(join(root, "awaiting-approval", "week48.approval.json"), "utf8"))
      const approved = yield* payoutsDone(serviceOf(sandbox), ["approve", approval.batch_id, "--jobs", root, "--by", "alice"], env)
      expect(approved.code, approved.output).toBe(0)
      yield* until("health counting the batch done", Effect.map(getJson(url), (h) => h.done === 1), 90_000)
      const settled = (h: Record<string, unknown>) =>
        h.done === 1 && h.awaiting_approval === 0 && h.running === 0 && h.rejected === 0 && h.attention === 0 && h.incomplete === 0
      yield* until("health: done 1, nothing awaiting approval or running", Effect.map(getJson(url), settled), 30_000)
      expect(ls(join(root, "done"))).toContain("week48.csv")
    }), 180_000)

  it.scopedLive("the schedule's next run is shown in the configured zone, with its name and offset (TZ, then --timezone)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot("payouts-truth-zone-")
      const env = { TZ: "Africa/Douala", PAYOUTS_STATE: join(root, "..", "state.db") }
      const daemon = yield* payouts(serviceOf(sandbox), ["watch", root, ...FAST, "--schedule", "0 6 * * *", "--health", "127.0.0.1:0"], env)
      const url = yield* healthUrl(() => daemon.stdout() + daemon.stderr())
      yield* until("the watching line", Effect.sync(() => daemon.stdout().includes("watching ")))
      const watching = lines(daemon.stdout()).find((l) => l.includes("watching "))
      expect(watching).toMatch(/schedule "0 6 \* \* \*" in Africa\/Douala, next run \d{4}-\d\d-\d\d 06:00 \(Africa\/Douala, UTC\+01:00\)/)
      yield* until("the first scan's figures in health", Effect.map(getJson(url), (h) => h.next_scheduled_at !== undefined))
      const health = yield* getJson(url)
      expect(health.next_scheduled_at).toMatch(/T06:00:00\.000\+01:00$/)
      expect(health.next_run).toMatch(/ 06:00 \(Africa\/Douala, UTC\+01:00\)$/)
      // A file dropped meanwhile is told when it will be taken, in the same zone.
      writeCsv(root, "night.csv", sellers(1, "N"))
      yield* until("the file told to wait", Effect.sync(() => daemon.stdout().includes("night.csv: waiting for the schedule")))
      expect(daemon.stdout()).toMatch(/night\.csv: waiting for the schedule, next run \d{4}-\d\d-\d\d 06:00 \(Africa\/Douala, UTC\+01:00\)/)

      // --timezone wins over TZ: the same expression read (and shown) in Kolkata.
      const other = yield* payouts(serviceOf(sandbox), ["watch", jobsRoot("payouts-truth-zone2-"), ...FAST, "--schedule", "30 9 * * *", "--timezone", "Asia/Kolkata"], env)
      yield* until("the watching line", Effect.sync(() => other.stdout().includes("watching ")))
      expect(other.stdout()).toMatch(/next run \d{4}-\d\d-\d\d 09:30 \(Asia\/Kolkata, UTC\+05:30\)/)
    }), 120_000)

  it.scopedLive("a re-dropped week49.csv keeps its name where it can; where done/ holds the earlier one, the new name and why are in the log and the summary", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot("payouts-truth-names-")
      const env = { PAYOUTS_STATE: join(root, "..", "state.db") }
      writeCsv(root, "week49.csv", sellers(2, "W"))
      const first = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...FAST], env)
      expect(first.code, first.output).toBe(0)
      const earlier = readFileSync(join(root, "done", "week49.summary.json"), "utf8")

      writeCsv(root, "week49.csv", sellers(2, "X", 10))
      const second = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...FAST], env)
      expect(second.code, second.output).toBe(0)
      // Claimed and run under its own name: processing/ was free.
      expect(second.output).toMatch(/claimed week49\.csv -> \S+processing\/week49\.csv/)
      const done = ls(join(root, "done")).filter((n) => n.endsWith(".csv") && !n.includes(".ledger.") && !n.includes(".errors."))
      expect(done).toHaveLength(2)
      expect(done).toContain("week49.csv")
      const renamed = done.find((n) => n !== "week49.csv") ?? ""
      expect(renamed).toMatch(/^week49\.\d{8}-\d{6}Z\.csv$/)
      // The earlier batch's outputs are untouched.
      expect(readFileSync(join(root, "done", "week49.summary.json"), "utf8")).toBe(earlier)
      const summary = JSON.parse(readFileSync(join(root, "done", renamed.replace(/\.csv$/, ".summary.json")), "utf8"))
      expect(summary.renamed).toMatchObject({ dropped_as: "week49.csv", filed_as: renamed })
      expect(summary.renamed.why.join(" ")).toMatch(/done\/ already holds week49\.csv of batch [0-9a-f]+ from an earlier drop/)
      expect(second.output).toContain(`week49.csv is filed as ${renamed}: done/ already holds week49.csv`)
    }), 180_000)

  it.scopedLive("a week49.csv dropped while an earlier week49.csv is still in processing/ is claimed under its arrival time, and says why", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot("payouts-truth-claim-")
      const env = { PAYOUTS_STATE: join(root, "..", "state.db") }
      mkdirSync(join(root, "processing"), { recursive: true })
      writeCsv(join(root, "processing"), "week49.csv", sellers(2, "P"))
      writeCsv(root, "week49.csv", sellers(2, "Q", 10))
      const watched = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...FAST], env)
      expect(watched.code, watched.output).toBe(0)
      expect(watched.output).toMatch(/claimed week49\.csv -> \S+processing\/week49\.\d{8}-\d{6}Z\.csv \(processing\/ already holds week49\.csv from an earlier drop/)
      const done = ls(join(root, "done")).filter((n) => n.endsWith(".summary.json"))
      expect(done).toHaveLength(2)
      expect(done).toContain("week49.summary.json")
      // Whichever reached done/ second carries the arrival time, and its summary says why.
      const renamed = done.find((n) => n !== "week49.summary.json") ?? ""
      expect(renamed).toMatch(/^week49\.\d{8}-\d{6}Z\.summary\.json$/)
      const summary = JSON.parse(readFileSync(join(root, "done", renamed), "utf8"))
      expect(summary.renamed.dropped_as).toBe("week49.csv")
      expect(summary.renamed.why.join(" ")).toMatch(/already holds week49\.csv/)
    }), 180_000)

  for (const format of ["json", "text"] as const) {
    it.scopedLive(`--log-format ${format}: every line of the daemon (a paid file, a rejected one, shutdown, a refused option) is in that format, with no fiber id`, () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const root = jobsRoot(`payouts-truth-${format}-`)
        const env = { PAYOUTS_STATE: join(root, "..", "state.db") }
        writeCsv(root, "good.csv", sellers(3, "G"))
        writeCsv(root, "bad.csv", [...sellers(1, "B", 5), { id: "B-X", amount: "-5", phone: ordinaryPhone(9) }])
        const daemon = yield* payouts(serviceOf(sandbox), ["watch", root, ...FAST, "--log-format", format, "--health-every", "300ms"], env)
        const filed = () => existsSync(join(root, "done", "good.summary.json")) && existsSync(join(root, "rejected", "bad.summary.json"))
        yield* until("both files filed", Effect.sync(filed), 90_000).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(daemon.stdout(), daemon.stderr()))))
        yield* until("the done line and a health line", Effect.sync(() => daemon.stdout().includes("done (exit 0)") && /\bhealth\b/.test(daemon.stdout())))
        daemon.child.kill("SIGTERM")
        expect(yield* daemon.exit).toBe(0)
        const refused = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--log-format", format, "--health", "nonsense"], env)
        expect(refused.code).toBe(2)
        const all = [...lines(daemon.stdout()), ...lines(daemon.stderr()), ...lines(refused.stdout), ...lines(refused.stderr)]
        expect(all.length).toBeGreaterThan(5)
        for (const line of all) {
          expect(line).not.toMatch(/fiber/i)
          if (format === "json") expect(() => JSON.parse(line), line).not.toThrow()
          else expect(line).toMatch(TEXT_LINE)
        }
        const messages = format === "json" ? all.map((l) => String(JSON.parse(l).message)) : all
        expect(messages.some((m) => m.includes("done (exit 0)"))).toBe(true)
        expect(messages.some((m) => m.includes("Shutting down"))).toBe(true)
        expect(messages.some((m) => m.includes("--health: \"nonsense\" is not HOST:PORT"))).toBe(true)
      }), 180_000)
  }
})
