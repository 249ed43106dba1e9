/**
 * The console's Attention page over real HTTP (issue 34): a run through the real binary leaves rows
 * unknown (the sandbox fails half the payouts with a 5xx before recording them); the page lists them
 * with the evidence `payouts resolve` shows; an approver cannot decide (403); an operator's decision
 * without a reason, or one that does not fit the row, is refused with the CLI's words; an abandon and
 * a resend are applied as `payouts resolve` applies them and land in the row's events with who and
 * why. Nobody is paid twice.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { join } from "node:path"
import { attentionRoutes } from "../../src/console/pages/Attention.ts"
import { ConsoleAccount, SignedIn } from "../../src/console/Contract.ts"
import { BatchId } from "../../src/domain/Ids.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { cli, FAST } from "../cli/binarySupport.ts"
import { clientLayer } from "../kit/Client.ts"
import { accountOf, admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { request, serveRoutes, textOf } from "./decisionsSupport.ts"

const sellers = Array.from({ length: 10 }, (_, i) => ({ id: `S-${i + 1}`, amount: String(27_000 + 100 * i), phone: ordinaryPhone(500 + i) }))

const OTTO = { name: "otto", role: "operator" } as const
const ANN = { name: "ann", role: "approver" } as const
const VERA = { name: "vera", role: "viewer" } as const

describe("console: Attention", () => {
  it.scopedLive(
    "lists the rows that need a person with their evidence; decisions are payouts resolve's, by the signed-in operator, recorded with who and why",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_before=0.5,seed=7" })
        const dir = tempDir("payouts-console-attention-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "sellers.csv", sellers)
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--resend-unknown", "never", "--reconcile-deadline", "10s", "--json"], { LC_ALL: "en_US.UTF-8" })
        expect(first.code, first.stderr).toBe(5)
        yield* admin(sandbox).faults("")
        const batchId = BatchId.make(String(JSON.parse(first.stdout).batch_id))
        const accountId = accountOf(sandbox)

        const layer = Layer.mergeAll(
          withHandles(SqliteStateStore.layer({ filename: state })),
          clientLayer(sandbox, { requestTimeout: "3 seconds" }),
          NodeContext.layer,
          Layer.succeed(ConsoleAccount, { accountId, urls: { returnUrl: "https://example.org/ok", cancelUrl: "https://example.org/no", callbackUrl: undefined } })
        )
        const context = yield* Layer.build(layer)
        const base = yield* serveRoutes((who) => attentionRoutes.pipe(Effect.provideService(SignedIn, who), Effect.provide(context)))
        const store = yield* Effect.provide(StateStore, context)
        const unknown = Chunk.toReadonlyArray(yield* Stream.runCollect(store.batch(accountId, batchId).streamRowsInStates(["unknown"])))
        expect(unknown.length).toBeGreaterThanOrEqual(2)
        const [a, b, c] = unknown

        // A viewer sees every unknown row with its evidence, and no decision to take.
        const look = yield* request(base, "/attention", VERA)
        expect(look.status).toBe(200)
        const seen = textOf(look.body)
        expect(seen).toContain(`${unknown.length} rows need a person`)
        for (const row of unknown) {
          expect(seen).toContain(`Line ${row.line}:`)
          expect(seen).toContain(`[${row.token}]`)
        }
        for (const row of unknown) expect(seen).toContain(`Why ${row.alarm ?? "outcome unknown"}`)
        expect(seen).toContain("Listed payouts carrying its token: none")
        expect(look.body).not.toContain(">Resend</button>")
        expect(look.body).not.toContain(sellers[0].phone)

        // An approver may not resolve; nothing changes.
        const path = `/attention/${batchId}/${a.line}`
        expect((yield* request(base, path, ANN, { decision: "abandon", reason: "checked" })).status).toBe(403)

        // The CLI's refusals: a decision needs a reason; an adoption needs a payout of this row's amount that exists.
        const operatorPage = yield* request(base, "/attention", OTTO)
        expect(operatorPage.body).toContain(">Resend</button>")
        expect(operatorPage.body).toContain(`<label for="reason-${batchId}-${a.line}">Reason</label>`)
        const noReason = yield* request(base, path, OTTO, { decision: "abandon", reason: "  " })
        expect(noReason.status).toBe(409)
        expect(textOf(noReason.body)).toContain("a decision needs a reason")
        const unfit = yield* request(base, path, OTTO, { decision: "adopt", reason: "checked", reference: "no-such-payout" })
        expect(unfit.status).toBe(409)
        expect(textOf(unfit.body)).toContain("Not done: status of no-such-payout:")
        const noReference = yield* request(base, path, OTTO, { decision: "adopt", reason: "checked", reference: "" })
        expect(noReference.status).toBe(409)
        expect((yield* store.batch(accountId, batchId).getRow(a.idx)).pipe((r) => r._tag === "Some" && r.value.state)).toBe("unknown")

        // Abandoned by otto, why recorded in the row's events; resent as payouts resolve --resend resends.
        const abandoned = yield* request(base, path, OTTO, { decision: "abandon", reason: "the seller was paid in cash" })
        expect(abandoned.status, textOf(abandoned.body)).toBe(200)
        expect(textOf(abandoned.body)).toContain(`Done: line ${a.line}: abandoned`)
        const events = yield* store.batch(accountId, batchId).events(a.idx)
        expect(events.some((ev) => ev.toState === "abandoned" && ev.source === "operator" && ev.detail === "abandoned by otto: the seller was paid in cash")).toBe(true)

        const resent = yield* request(base, `/attention/${batchId}/${b.line}`, OTTO, { decision: "resend", reason: "listing checked, not paid" })
        expect(resent.status, textOf(resent.body)).toBe(200)
        expect(textOf(resent.body)).toContain(`Done: line ${b.line}: resent`)
        const resentEvents = yield* store.batch(accountId, batchId).events(b.idx)
        expect(resentEvents.some((ev) => ev.detail === "resend by otto: listing checked, not paid")).toBe(true)

        // An acknowledged alarm is cleared; the row, still unknown, still needs a person.
        if (c !== undefined && c.alarm !== null) {
          const acknowledged = yield* request(base, `/attention/${batchId}/${c.line}`, OTTO, { decision: "acknowledge", reason: "seen it" })
          expect(textOf(acknowledged.body)).toContain(`Done: line ${c.line}: alarm acknowledged`)
          expect(textOf(acknowledged.body)).toContain(`Line ${c.line}:`)
        }

        // An account alarm: no row is resent while it holds (the CLI's words); a batch's Listing checked clears it.
        yield* store.account(accountId).raiseAccountAlarm("a known payout is listed altered", Date.now())
        const alarmed = yield* request(base, "/attention", OTTO)
        expect(textOf(alarmed.body)).toContain("Account alarm: a known payout is listed altered")
        expect(alarmed.body).toContain(">Listing checked</button>")
        if (c !== undefined) {
          const blocked = yield* request(base, `/attention/${batchId}/${c.line}`, OTTO, { decision: "resend", reason: "try" })
          expect(blocked.status).toBe(409)
          expect(textOf(blocked.body)).toContain(`line ${c.line}: refused, the account alarm says the listing cannot prove absence`)
        }
        expect((yield* request(base, `/attention/${batchId}/listing-ok`, ANN, { reason: "checked" })).status).toBe(403)
        const cleared = yield* request(base, `/attention/${batchId}/listing-ok`, OTTO, { reason: "checked the listing by hand" })
        expect(textOf(cleared.body)).toContain("Account alarm cleared (1) by otto: checked the listing by hand.")
        expect(textOf(cleared.body)).not.toContain("Account alarm: ")

        // Decided rows leave the page; a second decision on one is refused as the CLI refuses it.
        const after = textOf((yield* request(base, "/attention", VERA)).body)
        expect(after).not.toContain(`Line ${a.line}:`)
        const again = yield* request(base, path, OTTO, { decision: "abandon", reason: "again" })
        expect(again.status).toBe(409)
        expect(textOf(again.body)).toContain(`line ${a.line} is abandoned`)
        expect([...countByToken(yield* admin(sandbox).payouts).values()].every((n) => n === 1)).toBe(true)
      }),
    180_000
  )
})
