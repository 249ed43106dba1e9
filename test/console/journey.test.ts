/**
 * The console's whole journey (issue 34, "done when"), through the real binaries and headless
 * Chromium: people added with `payouts users add`; a file dropped into a folder that `payouts watch
 * --require-approval --four-eyes` serves; its submitter's approval refused in the browser and a second
 * person's taken; the batch watched to its end on the Batches page; the rows it could not prove
 * settled by an operator on the Attention page; every decision in the store's events with who and
 * why, and nobody paid twice. A viewer cannot approve and an approver cannot resolve. The Approvals and Attention screenshots of the manual come from here.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import { join, resolve } from "node:path"
import type { Page } from "playwright-core"
import { browser, newPage, screenshot } from "../kit/Browser.ts"
import { BatchId } from "../../src/domain/Ids.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { handlesOf } from "../kit/Store.ts"
import { FAST, payouts, serviceOf, until } from "../jobs/cli.ts"
import { accountOf, admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone } from "../run/support.ts"
import { PASSWORD } from "./consoleSupport.ts"

const BIN = resolve("bin/payouts.js")
/** Long enough for a loaded machine; every wait ends as soon as its condition holds. */
const WAIT = { timeout: 120_000 }
const ROWS = 8

const use = <A>(f: () => Promise<A>) => Effect.promise(f)

const shot = (p: Page, name: string) => screenshot(p, `console-${name}`)

const signIn = (p: Page, base: string, name: string) =>
  use(async () => {
    await p.goto(`${base}/sign-in`)
    await p.getByLabel("Name").fill(name)
    await p.getByLabel("Password").fill(PASSWORD)
    await Promise.all([p.waitForURL(/\/batches$/), p.getByRole("button", { name: "Sign in" }).click()])
  })

/** Types the reason into the first form of `scope` and presses `button`; the text of the page that answers. */
const decide = (p: Page, scope: ReturnType<Page["locator"]>, reason: string, button: string) =>
  use(async () => {
    await scope.getByLabel("Reason").first().fill(reason)
    await Promise.all([p.waitForEvent("framenavigated", WAIT), scope.getByRole("button", { name: button, exact: true }).first().click()])
    await p.locator('[role="status"], [role="alert"]').first().waitFor(WAIT)
    return await p.locator("main").innerText()
  })

describe("the console's journey", () => {
  it.scopedLive(
    "a dropped batch approved by a second person, watched to its end, and its rows in doubt settled, all in the browser",
    () =>
      Effect.gen(function* () {
        // Half the payouts fail with a 5xx before the service records them: rows in doubt for a person.
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_before=0.5,seed=7" })
        const service = serviceOf(sandbox)
        const root = tempDir("payouts-console-journey-")
        const jobs = join(root, "jobs")
        Fs.mkdirSync(jobs)
        const state = join(root, "state.db")
        const env = { ...process.env, PAYOUTS_BASE_URL: service.baseUrl, PAYOUTS_API_KEY: service.key, PAYOUTS_API_SECRET: service.secret }
        for (const [name, role] of [["carol", "approver"], ["alice", "approver"], ["otto", "operator"], ["vic", "viewer"]] as const) {
          const added = spawnSync(process.execPath, [BIN, "users", "add", name, "--role", role, "--password-stdin", "--state", state], { input: `${PASSWORD}\n`, env, encoding: "utf8" })
          expect(added.status, added.stderr).toBe(0)
        }

        const policy = ["--four-eyes", "--submitted-by", "carol"]
        const watch = yield* payouts(service, ["watch", jobs, "--state", state, "--require-approval", ...policy, ...FAST, "--resend-unknown", "never", "--reconcile-deadline", "10s"])
        const konsole = yield* payouts(service, ["console", "--jobs", jobs, "--state", state, "--listen", "127.0.0.1:0", ...policy])
        yield* until("the console's address", Effect.sync(() => /Console: http:\/\/\S+/.test(konsole.stdout())), 60_000)
        const base = /Console: (http:\/\/\S+?)\/?(\s|$)/.exec(konsole.stdout())![1]

        const lines = Array.from({ length: ROWS }, (_, i) => `J-${i + 1},${27_000 + 100 * i},XAF,carrier1_cm,${ordinaryPhone(700 + i)},Seller ${i + 1},seller${i + 1}@example.com`)
        Fs.writeFileSync(join(jobs, "weekly.csv"), `id,amount,currency,operator,phone,name,email\n${lines.join("\n")}\n`)
        yield* until("the batch awaiting approval", Effect.sync(() => Fs.existsSync(join(jobs, "awaiting-approval", "weekly.csv"))), 120_000)

        const b = yield* browser
        // The submitter may not approve their own batch.
        const carol = yield* newPage(b)
        yield* signIn(carol, base, "carol")
        yield* use(() => carol.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click())
        yield* use(() => carol.waitForURL(/\/approvals$/))
        const request = carol.locator("section", { hasText: "weekly.csv" })
        yield* use(() => request.waitFor(WAIT))
        expect(yield* use(() => request.innerText())).toMatch(/XAF/)
        yield* shot(carol, "approvals")
        const refused = yield* decide(carol, request, "looks right", "Approve")
        expect(refused).toMatch(/carol/)
        expect(refused).toMatch(/submit/i)
        expect(Fs.existsSync(join(jobs, "awaiting-approval", "weekly.csv"))).toBe(true)

        // A viewer sees the request and may not decide it.
        const vic = yield* newPage(b)
        yield* signIn(vic, base, "vic")
        yield* use(() => vic.goto(`${base}/approvals`))
        yield* use(() => vic.getByText("weekly.csv").first().waitFor(WAIT))
        expect(yield* use(() => vic.getByRole("button", { name: "Approve", exact: true }).count())).toBe(0)

        // A second person approves; the watcher pays; the Batches page follows it to its end.
        const alice = yield* newPage(b)
        yield* signIn(alice, base, "alice")
        yield* use(() => alice.goto(`${base}/approvals`))
        const approved = yield* decide(alice, alice.locator("section", { hasText: "weekly.csv" }), "totals match the settlement report", "Approve")
        expect(approved).toMatch(/alice/)
        yield* use(() => alice.goto(`${base}/batches`))
        const row = alice.locator("tr", { hasText: "weekly.csv" })
        yield* use(() => row.getByText(`of ${ROWS} final`).waitFor(WAIT))
        // The run ends with the rows it could not prove: the batch waits in attention/ for a person.
        yield* until("the batch in attention/", Effect.sync(() => Fs.existsSync(join(jobs, "attention", "weekly.csv"))), 180_000)
        // The open page follows the store without a reload: every row the service answered is final.
        yield* until("the Batches page caught up", Effect.promise(() => row.innerText().then((t) => !/\b0 of/.test(t))), 60_000)
        yield* admin(sandbox).faults("")

        // The operator settles every row in doubt on the Attention page: each abandoned with a reason.
        const otto = yield* newPage(b)
        yield* signIn(otto, base, "otto")
        yield* use(() => otto.goto(`${base}/attention`))
        yield* use(() => otto.locator("article").first().waitFor(WAIT))
        yield* shot(otto, "attention")
        // An approver sees the rows in doubt and may not decide them.
        yield* use(() => carol.goto(`${base}/attention`))
        yield* use(() => carol.locator("article").first().waitFor(WAIT))
        expect(yield* use(() => carol.getByRole("button", { name: "Abandon", exact: true }).count())).toBe(0)
        const store = handlesOf(yield* Layer.build(SqliteStateStore.layer({ filename: state })))
        const accountId = accountOf(sandbox)
        const batches = yield* Effect.orDie(store.account(accountId).listBatches())
        const batchId = BatchId.make(batches.find((x) => x.fileName === "weekly.csv")!.batchId)
        const batch = store.batch(accountId, batchId)
        const inDoubt = Chunk.toReadonlyArray(yield* Stream.runCollect(batch.streamRowsInStates(["unknown"])))
        expect(inDoubt.length).toBeGreaterThanOrEqual(1)
        // The first is sent again (the listing proved it absent), the others abandoned: paid by hand.
        for (const [i, r] of inDoubt.entries()) {
          yield* use(() => otto.goto(`${base}/attention`))
          const article = otto.locator("article", { hasText: `Line ${r.line}:` })
          const answer = i === 0
            ? yield* decide(otto, article, "not listed: send it again", "Resend")
            : yield* decide(otto, article, "the service never recorded it; paid by hand", "Abandon")
          expect(answer).toMatch(/otto/)
        }
        const left = Chunk.toReadonlyArray(yield* Stream.runCollect(batch.streamRowsInStates(["unknown"])))
        expect(left).toEqual([])

        // Who decided what is in the batch's events; nobody was paid twice.
        const events = yield* Effect.orDie(batch.events())
        const text = JSON.stringify(events)
        const approvedBy = (yield* Effect.orDie(store.account(accountId).listBatches())).find((x) => x.batchId === batchId)?.approvedBy
        expect(approvedBy).toBe("alice")
        expect(text).toContain("otto")
        expect(text).toContain("paid by hand")
        const listed = countByToken(yield* admin(sandbox).payouts)
        expect([...listed.values()].every((n) => n === 1)).toBe(true)
        // The row sent again from the console reached the service, once.
        expect(listed.get(inDoubt[0].token)).toBe(1)
        expect(`${watch.stdout()}${watch.stderr()}`).not.toMatch(/internal error/)
      }),
    360_000
  )
})
