/**
 * A person settles what a run could not prove, through the real binary: a run against a listing
 * that strips our tokens ends with exit 5; `payouts resolve` shows the evidence, refuses a resend
 * while a payout carries the token, adopts or abandons with who and why, clears the account alarm;
 * `payouts reconcile --account` finds a duplicate; `payouts watch --once` moves such a batch to
 * attention/ and exits 5.
 */
import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

const cli = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const env = { PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, NO_COLOR: "1" }
    const proc = yield* Process.start(Process.make("node", "bin/payouts.js", ...args).pipe(Process.workingDirectory(ROOT), Process.env(env)))
    const [stdout, stderr, code] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], { concurrency: "unbounded" })
    return { code: Number(code), stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

const FAST = ["--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--lease-ttl", "3s", "--request-timeout", "800ms", "--concurrency", "4"]

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(2000 + i), phone: ordinaryPhone(200 + i) }))

describe("payouts resolve and reconcile --account (the binary)", () => {
  it.scopedLive(
    "exit 5 on an altered listing; resolve shows, refuses a resend, adopts, abandons, clears; the rerun finishes",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_after=0.3,payout.error_before=0.1,transactions.desc_mangle=strip,seed=31" })
        const dir = tempDir("payouts-resolve-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "alarm.csv", sellers(12, "A"))
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(5)
        const summary = JSON.parse(first.stdout)
        expect(summary.account_alarm).toContain("altered")
        expect(first.stderr).toContain("payouts resolve")
        const batch = String(summary.batch_id)
        const ledger = readFileSync(join(dir, "alarm.ledger.csv"), "utf8")
        expect(ledger).toContain("unknown")

        const shown = yield* cli(sandbox, state, ["resolve", batch, "--json"])
        expect(shown.code, shown.stderr).toBe(5)
        const evidence = JSON.parse(shown.stdout)
        expect(evidence.account_alarm).toContain("altered")
        const unknown = evidence.rows.filter((r: { state: string }) => r.state === "unknown")
        expect(unknown.length).toBeGreaterThan(0)

        // The listing strips our tokens, so the evidence holds no carrier: the person looks it up
        // by hand (here: the sandbox's own record of payouts) and adopts what exists.
        const truth = yield* admin(sandbox).payouts
        let adopted = 0
        let abandoned = 0
        // A payout that exists but whose token the listing strips: a resend would pay it twice, so it
        // is refused while the account alarm says the listing cannot prove absence.
        const paid = unknown.find((row: { token: string }) => truth.some((p) => p.description.startsWith(`[${row.token}]`)))
        if (paid !== undefined) {
          const resend = yield* cli(sandbox, state, ["resolve", batch, "--line", String(paid.line), "--by", "ops-ana", "--reason", "looks unpaid", "--resend"])
          expect(resend.code, resend.stdout).toBe(2)
          expect(resend.stderr).toContain("account alarm")
        }
        for (const row of unknown) {
          const real = truth.find((p) => p.description.startsWith(`[${row.token}]`))
          const args = real === undefined ? ["--abandon"] : ["--adopt", real.reference]
          const decided = yield* cli(sandbox, state, ["resolve", batch, "--line", String(row.line), "--by", "ops-ana", "--reason", "checked the dashboard", ...args])
          expect(decided.stdout).toContain(real === undefined ? "abandoned" : `adopted ${real.reference}`)
          if (real === undefined) abandoned++
          else adopted++
        }
        expect(adopted + abandoned).toBe(unknown.length)

        const noReason = yield* cli(sandbox, state, ["resolve", batch, "--listing-ok", "--by", "ops-ana"])
        expect(noReason.code).toBe(2)
        const cleared = yield* cli(sandbox, state, ["resolve", batch, "--listing-ok", "--by", "ops-ana", "--reason", "tokens stripped by the provider's UI"])
        expect(cleared.stdout).toContain("Account alarm cleared")
        expect(cleared.code, cleared.stdout + cleared.stderr).toBe(0)

        const rerun = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect([0, 1], rerun.stderr).toContain(rerun.code)
        const final = JSON.parse(rerun.stdout)
        expect(final.counts.unknown ?? 0).toBe(0)
        expect(final.counts.abandoned ?? 0).toBe(abandoned)
        // Nobody was paid twice.
        const tokens = new Map<string, number>()
        for (const p of yield* admin(sandbox).payouts) {
          const t = /^\[([^\]]+)\]/.exec(p.description)?.[1] ?? ""
          tokens.set(t, (tokens.get(t) ?? 0) + 1)
        }
        expect([...tokens.values()].every((n) => n === 1)).toBe(true)
      }),
    180_000
  )

  it.scopedLive(
    "resolve --resend is refused while a listed payout carries the row's token; reconcile --account lists a duplicate (exit 5)",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-resolve2-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "clean.csv", sellers(4, "C"))
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(0)
        const clean = yield* cli(sandbox, state, ["reconcile", "--account"])
        expect(clean.code, clean.stdout + clean.stderr).toBe(0)
        expect(clean.stdout).toContain("4 carrying a token of ours")

        // Someone pays line 2's payout again by hand, with the same description.
        const original = (yield* admin(sandbox).payouts)[0]
        const headers = { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, "Content-Type": "application/json", Accept: "application/json" }
        const again = yield* Effect.promise(() =>
          fetch(`${sandbox.baseUrl}/payments/payout/mobile-money`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              amount: original.amount,
              currency: "XAF",
              operator: "carrier1_cm",
              phoneNumber: original.phoneNumber ?? original.phone,
              return_url: "http://localhost/r",
              cancel_url: "http://localhost/c",
              callback_url: "http://localhost/w",
              description: original.description,
              customer: { name: "Seller", phone: original.phoneNumber ?? original.phone, email: "s@example.com" }
            })
          }).then((r) => r.status)
        )
        expect(again).toBe(200)
        const dup = yield* cli(sandbox, state, ["reconcile", "--account", "--json"])
        expect(dup.code, dup.stderr).toBe(5)
        const report = JSON.parse(dup.stdout)
        expect(report.findings.map((f: { kind: string }) => f.kind)).toContain("duplicate")
        const batch = String(JSON.parse(first.stdout).batch_id)
        const refused = yield* cli(sandbox, state, ["resolve", batch, "--line", "2", "--by", "ops", "--reason", "x", "--resend"])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toMatch(/only an unknown row can be resent|carries its token/)
      }),
    120_000
  )

  it.scopedLive(
    "watch --once moves a batch that needs a person to attention/ with a note, and exits 5",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_after=0.4,transactions.desc_mangle=cut=10,seed=32" })
        const root = join(tempDir("payouts-attention-"), "jobs")
        mkdirSync(root, { recursive: true })
        writeCsv(root, "hard.csv", sellers(12, "H"))
        const watched = yield* cli(sandbox, join(root, "..", "state.db"), ["watch", root, "--once", ...FAST, "--settle", "0s"])
        expect(watched.code, watched.stdout + watched.stderr).toBe(5)
        const files = readdirSync(join(root, "attention"))
        expect(files).toContain("hard.csv")
        expect(files).toContain("hard.ledger.csv")
        expect(existsSync(join(root, "attention", "hard.attention.txt"))).toBe(true)
        expect(readFileSync(join(root, "attention", "hard.attention.txt"), "utf8")).toContain("payouts resolve")
        expect(readdirSync(join(root, "processing"))).toEqual([])
      }),
    120_000
  )
})
