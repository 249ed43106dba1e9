/**
 * Issue 31 item 6, through the binary on a pseudo-terminal: the question before paying shows the
 * figures once, in major units with the user's separators, with one total debited per currency and
 * the available balance before and after; it is asked of a service on loopback that is not our
 * sandbox (a tunnel to a real one) and of a live profile, and not of our sandbox on loopback.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { isLoopbackUrl } from "../../src/api/ServiceClock.ts"
import { formatFor } from "../../src/output/Format.ts"
import { describePreflight } from "../../src/cli/NoticeText.ts"
import { preflight } from "../../src/run/Preflight.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { onTerminal, serviceOnLoopback } from "./terminalSupport.ts"

const FAST = ["--poll-interval", "100ms", "--poll-max", "300ms", "--lease-ttl", "3s"]

const envOf = (home: string, connection: { baseUrl: string; key: string; secret: string } | undefined) => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PAYOUTS_") && k !== "XDG_CONFIG_HOME"))
  return {
    ...inherited,
    ...(connection === undefined ? {} : { PAYOUTS_BASE_URL: connection.baseUrl, PAYOUTS_API_KEY: connection.key, PAYOUTS_API_SECRET: connection.secret }),
    NO_COLOR: "1",
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    LC_ALL: "",
    LC_NUMERIC: "",
    LANG: "en_US.UTF-8"
  }
}

const times = (text: string, part: string) => text.split(part).length - 1

// 1,234,567 + 1,500,000 + 2,000,000 XAF; estimated fees 2% each, rounded up: 24,692 + 30,000 + 40,000.
const sellers = (prefix: string) => [
  { id: `${prefix}1`, amount: "1234567", phone: ordinaryPhone(11) },
  { id: `${prefix}2`, amount: "1500000", phone: ordinaryPhone(12) },
  { id: `${prefix}3`, amount: "2000000", phone: ordinaryPhone(13) }
]

describe("the question before paying (issue 31 item 6)", () => {
  it("loopback is 127.0.0.0/8, ::1 and localhost; anything else is not", () => {
    for (const url of ["http://127.0.0.1:8080/v1", "http://127.3.2.1/v1", "http://[::1]:9/v1", "http://LOCALHOST:1/v1"]) expect(isLoopbackUrl(url), url).toBe(true)
    for (const url of ["https://api.example.com/v1", "http://10.0.0.1/v1", "http://127.0.0.1.example.com/v1", "http://[::2]/v1", "not a url"]) expect(isLoopbackUrl(url), url).toBe(false)
  })

  it("each currency's figures: total debited, the balance after, how short it falls, and what partial pays", () => {
    const rows = [
      { idx: 0, currency: "XAF", amountMinor: 30_000 },
      { idx: 1, currency: "XAF", amountMinor: 90_000 },
      { idx: 2, currency: "USD", amountMinor: 123_456_78 }
    ]
    const available = new Map([["XAF", 100_000], ["USD", 200_000_00]])
    const fee = { percent: 2, minimumMinor: 50 }
    const en = formatFor("en-US")
    expect(describePreflight(preflight(rows, available, fee, "abort"), en).split("\n")).toEqual([
      "  XAF: 2 rows, 120,000 XAF + est. fees 2,400 XAF = total debited 122,400 XAF",
      "       available 100,000 XAF, short by 22,400 XAF: INSUFFICIENT",
      "  USD: 1 row, 123,456.78 USD + est. fees 2,469.14 USD = total debited 125,925.92 USD",
      "       available 200,000.00 USD; after this batch 74,074.08 USD: fits"
    ])
    expect(describePreflight(preflight(rows, available, fee, "partial"), en).split("\n").slice(0, 3)).toEqual([
      "  XAF: 2 rows, 120,000 XAF + est. fees 2,400 XAF = total debited 122,400 XAF",
      "       available 100,000 XAF, short by 22,400 XAF: INSUFFICIENT",
      "       1 row fits (total debited 30,600 XAF), 1 skipped; after this batch 69,400 XAF"
    ])
    // The user's separators: French groups with a narrow no-break space and writes a decimal comma.
    expect(describePreflight(preflight(rows.slice(2), available, fee, "abort"), formatFor("fr-FR"))).toContain("123\u202f456,78 USD")
  })

  it.scopedLive(
    "asked once of a non-sandbox service on loopback, with separated figures, the total debited and the balance after; never of our sandbox; always of a live profile",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-confirm-")
        const tunnel = yield* serviceOnLoopback(sandbox)
        const file = writeCsv(home, "week.csv", sellers("W"))

        const declined = yield* onTerminal(home, envOf(home, { ...sandbox, baseUrl: tunnel.baseUrl }), ["run", file, ...FAST], "no")
        expect(declined.code, declined.output).toBe(2)
        expect(times(declined.output, "About to pay real money"), declined.output).toBe(1)
        expect(declined.output).toContain("3 rows to pay")
        expect(declined.output).toContain("XAF: 3 rows, 4,734,567 XAF + est. fees 94,692 XAF = total debited 4,829,259 XAF")
        expect(declined.output).toContain("available 50,000,000 XAF; after this batch 45,170,741 XAF: fits")
        // The figures once: in the question, not also in a preflight printed before it.
        expect(times(declined.output, "total debited"), declined.output).toBe(1)
        expect(declined.output).not.toContain("Balance preflight:")
        expect(yield* admin(sandbox).payouts).toEqual([])

        // Our sandbox on loopback: a rehearsal, paid without a question; the figures printed once.
        const rehearsal = yield* onTerminal(home, envOf(home, sandbox), ["run", writeCsv(home, "rehearsal.csv", sellers("R")), ...FAST], undefined)
        expect(rehearsal.code, rehearsal.output).toBe(0)
        expect(rehearsal.output).not.toContain("About to pay")
        expect(rehearsal.output).toContain("a rehearsal, no real money moves")
        expect(times(rehearsal.output, "Balance preflight:")).toBe(1)
        expect(rehearsal.output).toContain("available 50,000,000 XAF; after this batch 45,170,741 XAF: fits")
        expect((yield* admin(sandbox).payouts).length).toBe(3)

        // A profile marked live is asked even on our sandbox: it says it moves real money.
        mkdirSync(join(home, "config", "payouts"), { recursive: true })
        const config = { profiles: { prod: { live: true, base_url: sandbox.baseUrl, api_key: sandbox.key, api_secret: sandbox.secret } } }
        writeFileSync(join(home, "config", "payouts", "config.json"), JSON.stringify(config), { mode: 0o600 })
        // Its first phone was paid to another name by the rehearsal: said once, in the question.
        const renamed = sellers("L").map((r, i) => (i === 0 ? { ...r, name: "Someone Else" } : r))
        const live = yield* onTerminal(home, envOf(home, undefined), ["run", writeCsv(home, "live.csv", renamed), "--profile", "prod", ...FAST], "no")
        expect(live.code, live.output).toBe(2)
        expect(times(live.output, "About to pay real money")).toBe(1)
        expect(live.output).toContain("profile prod (live)")
        expect(times(live.output, `to "Someone Else" was paid to "Seller 1" in rehearsal.csv line 2`), live.output).toBe(1)
        expect((yield* admin(sandbox).payouts).length).toBe(3)
      }),
    120_000
  )
})
