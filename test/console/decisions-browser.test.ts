/**
 * The console's Approvals and Attention pages driven in headless Chromium (playwright-core, the
 * system's /usr/bin/chromium), as a person uses them: by the labelled Reason field and the named
 * buttons. Who is signed in is the harness's header (decisionsSupport.ts), set per person.
 * The submitter's approval is refused (four eyes) and a second person's goes through; an operator
 * abandons an unknown row, and the store's events say who and why.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Layer, Option, Stream } from "effect"
import * as Fs from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { browser, newPage } from "../kit/Browser.ts"
import { JobNotesLive } from "../../src/cli/JobNoteText.ts"
import { ConsoleAccount, SignedIn } from "../../src/console/Contract.ts"
import type { Role } from "../../src/console/Roles.ts"
import { approvalsRoutes } from "../../src/console/pages/Approvals.ts"
import { attentionRoutes } from "../../src/console/pages/Attention.ts"
import { ConsoleSettings } from "../../src/console/Settings.ts"
import { BatchId } from "../../src/domain/Ids.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { HttpRouter } from "@effect/platform"
import { cli, FAST as RUN_FAST } from "../cli/binarySupport.ts"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { clientLayer } from "../kit/Client.ts"
import { accountOf, admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { serveRoutes } from "./decisionsSupport.ts"

/** Opens `path` as `name` (the harness's stand-in for a session). */
const openAs = (p: Page, url: string, name: string, role: Role) =>
  Effect.promise(async () => {
    await p.setExtraHTTPHeaders({ "x-test-user": name, "x-test-role": role })
    await p.goto(url)
  })

/** Types the reason and presses the button in `scope`; the text of the page the decision answers with. */
const decide = (p: Page, scope: ReturnType<Page["locator"]>, reason: string, button: string) =>
  Effect.promise(async () => {
    await scope.getByLabel("Reason").fill(reason)
    await Promise.all([p.waitForEvent("framenavigated", { timeout: 60_000 }), scope.getByRole("button", { name: button, exact: true }).click()])
    // The answer's page says what was done or refused (the pages before a decision have neither).
    await p.locator('[role="status"], [role="alert"]').first().waitFor({ timeout: 60_000 })
    return await p.locator("main").innerText()
  })

describe("console decisions in headless Chromium", () => {
  it.scopedLive(
    "the submitter is refused, a second person approves; an operator abandons an unknown row, recorded with who and why",
    () =>
      Effect.gen(function* () {
        // A batch waiting for approval, put up by a real watcher for alice.
        const clean = yield* startSandbox()
        const base = tempDir("payouts-console-browser-")
        const root = join(base, "jobs")
        Fs.mkdirSync(root, { recursive: true })
        writeCsv(root, "payroll.csv", [{ id: "P-1", amount: "85400", phone: ordinaryPhone(31) }, { id: "P-2", amount: "1000", phone: ordinaryPhone(32) }])
        const watch = yield* payoutsDone(serviceOf(clean), ["watch", root, "--once", "--require-approval", "--four-eyes", "--submitted-by", "alice", "--state", join(base, "watch.db"), ...FAST])
        expect(watch.code, watch.output).toBe(0)

        // Rows a real run left unknown (half the payouts fail with a 5xx before the service records them).
        const faulty = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_before=0.5,seed=7" })
        const state = join(base, "state.db")
        const file = writeCsv(base, "sellers.csv", Array.from({ length: 8 }, (_, i) => ({ id: `S-${i + 1}`, amount: String(27_000 + 100 * i), phone: ordinaryPhone(600 + i) })))
        const run = yield* cli(faulty, state, ["run", file, ...RUN_FAST, "--resend-unknown", "never", "--reconcile-deadline", "10s", "--json"], { LC_ALL: "en_US.UTF-8" })
        expect(run.code, run.stderr).toBe(5)
        yield* admin(faulty).faults("")
        const batchId = BatchId.make(String(JSON.parse(run.stdout).batch_id))
        const accountId = accountOf(faulty)

        const context = yield* Layer.build(Layer.mergeAll(
          NodeContext.layer,
          JobNotesLive,
          withHandles(SqliteStateStore.layer({ filename: state })),
          clientLayer(faulty, { requestTimeout: "3 seconds" }),
          Layer.succeed(ConsoleSettings, { jobs: Option.some(jobFolder(root)), policy: { approvers: [], fourEyes: true, submittedBy: "alice" }, idleTimeout: Duration.minutes(30), secure: false }),
          Layer.succeed(ConsoleAccount, { accountId, urls: { returnUrl: "https://example.org/ok", cancelUrl: "https://example.org/no", callbackUrl: undefined } })
        ))
        const routes = HttpRouter.concat(approvalsRoutes, attentionRoutes)
        const url = yield* serveRoutes((who) => routes.pipe(Effect.provideService(SignedIn, who), Effect.provide(context)))
        const p = yield* newPage(yield* browser)

        // Alice submitted the batch: told so, and refused when she tries.
        yield* openAs(p, `${url}/approvals`, "alice", "approver")
        const batch = p.locator("section").filter({ hasText: "payroll.csv" })
        expect(yield* Effect.promise(() => batch.innerText())).toContain("You may not approve this batch: four eyes: alice submitted this batch")
        const refused = yield* decide(p, batch, "looks right to me", "Approve")
        expect(refused).toContain("Not done: not approved: four eyes: alice submitted this batch; another person must approve it")
        expect(Fs.existsSync(join(root, "awaiting-approval", "payroll.csv"))).toBe(true)

        // Bob approves it, with why.
        yield* openAs(p, `${url}/approvals`, "bob", "approver")
        const approved = yield* decide(p, p.locator("section").filter({ hasText: "payroll.csv" }), "matches the payroll sheet", "Approve")
        expect(approved).toMatch(/Approved batch \w+ \(payroll\.csv\) by bob/)
        expect(approved).toContain("No batch is waiting for approval.")
        const record = JSON.parse(Fs.readFileSync(join(root, "processing", "payroll.approval.json"), "utf8"))
        expect(record).toMatchObject({ status: "approved", approved_by: "bob", submitted_by: "alice", reason: "matches the payroll sheet" })

        // Otto abandons the first unknown row on the Attention page.
        const store = yield* Effect.provide(StateStore, context)
        const [row] = Chunk.toReadonlyArray(yield* Stream.runCollect(store.batch(accountId, batchId).streamRowsInStates(["unknown"])))
        expect(row).toBeDefined()
        yield* openAs(p, `${url}/attention`, "otto", "operator")
        const article = p.locator("article").filter({ hasText: `Line ${row.line}:` })
        const done = yield* decide(p, article, "the seller was paid in cash", "Abandon")
        expect(done).toContain(`Done: line ${row.line}: abandoned`)
        const events = yield* store.batch(accountId, batchId).events(row.idx)
        expect(events.some((ev) => ev.toState === "abandoned" && ev.detail === "abandoned by otto: the seller was paid in cash")).toBe(true)

        // A viewer sees the page without any decision to take.
        yield* openAs(p, `${url}/attention`, "vera", "viewer")
        expect(yield* Effect.promise(() => p.getByRole("button", { name: "Abandon" }).count())).toBe(0)
      }),
    240_000
  )
})
