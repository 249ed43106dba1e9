/**
 * The console in headless Chromium (playwright-core, the system's /usr/bin/chromium), as a person uses
 * it (issue 34): sign in with the labelled form; watch a real `payouts run` appear and finish on the
 * Batches page without reloading it; open the batch, filter and search its rows (phones masked); halt
 * and lift the account as an operator, recorded in the store; a viewer sees no Halt; the skip link is
 * the first stop of the keyboard; a phone's width needs no sideways scrolling. Screenshots of each page
 * go to test-output/.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Page } from "playwright-core"
import { browser, newPage, screenshot } from "../kit/Browser.ts"
import { maskPhone } from "../../src/domain/Phone.ts"
import { payoutsDone, serviceOf } from "../jobs/cli.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { PASSWORD, startConsole } from "./consoleSupport.ts"

const ROWS = 40
/** Long enough for a loaded machine; every wait below ends as soon as its condition holds. */
const WAIT = { timeout: 90_000 }

const use = <A>(f: () => Promise<A>) => Effect.promise(f)

const shot = (p: Page, name: string) => screenshot(p, `console-${name}`)

const signInAs = (p: Page, base: string, name: string) =>
  use(async () => {
    await p.goto(`${base}/batches`)
    // Sent to sign in first; back to the batches once signed in.
    await p.waitForURL(/\/sign-in$/)
    await p.getByLabel("Name").fill(name)
    await p.getByLabel("Password").fill(PASSWORD)
    await Promise.all([p.waitForURL(/\/batches$/), p.getByRole("button", { name: "Sign in" }).click()])
  })

describe("console in headless Chromium", () => {
  it.scopedLive(
    "sign in, watch a run live, look into its rows, halt and lift as an operator; a viewer cannot halt",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const konsole = yield* startConsole(sandbox)
        yield* konsole.addUser("olga", "operator")
        yield* konsole.addUser("vic", "viewer")
        const b = yield* browser
        const p = yield* newPage(b)

        yield* use(() => p.goto(`${konsole.url}/sign-in`))
        yield* shot(p, "sign-in")
        yield* signInAs(p, konsole.url, "olga")
        expect(yield* use(() => p.getByRole("heading", { level: 1 }).innerText())).toBe("Batches")
        expect(yield* use(() => p.getByText("No batches in this account's state store yet.").isVisible())).toBe(true)
        // Marks this document: still there at the end, the page was never loaded again.
        yield* use(() => p.evaluate(() => Object.assign(window, { consoleMarker: "kept" })))

        const dir = tempDir("payouts-console-run-")
        const file = writeCsv(dir, "live.csv", Array.from({ length: ROWS }, (_, i) => ({ id: `L-${i + 1}`, amount: String(1_000 + i), phone: ordinaryPhone(100 + i) })))
        const run = yield* Effect.fork(payoutsDone(serviceOf(sandbox), ["run", file, "--state", konsole.state, "--poll-interval", "100ms", "--poll-max", "400ms"]))
        const row = p.locator("tr", { hasText: "live.csv" })
        yield* use(() => row.waitFor(WAIT))
        yield* use(() => row.locator(".state-done").waitFor(WAIT))
        const ran = yield* run.await.pipe(Effect.flatten)
        expect([0, 1], ran.output).toContain(ran.code)
        yield* use(() => row.getByText(`${ROWS} of ${ROWS} final`).waitFor(WAIT))
        expect(yield* use(() => p.evaluate(() => (window as unknown as { consoleMarker?: string }).consoleMarker))).toBe("kept")
        yield* shot(p, "batches")

        // The batch's page: its rows, masked, filtered and searched; its events.
        yield* use(() => Promise.all([p.waitForURL(/\/batches\/[0-9a-f]+$/), row.getByRole("link", { name: "live.csv" }).click()]))
        const content = yield* use(() => p.content())
        expect(content).toContain(maskPhone(ordinaryPhone(100)))
        expect(content).not.toContain(ordinaryPhone(100))
        expect(yield* use(() => p.getByRole("heading", { name: "Events" }).isVisible())).toBe(true)
        expect(yield* use(() => p.locator("ol.events li").count())).toBeGreaterThanOrEqual(ROWS)
        yield* shot(p, "batch")
        yield* use(async () => {
          await p.getByLabel("Search id, name or phone").fill("L-3")
          await Promise.all([p.waitForURL(/q=L-3/), p.getByRole("button", { name: "Show rows" }).click()])
        })
        // L-3 and L-30 to L-39.
        expect(yield* use(() => p.locator("caption", { hasText: "matching row" }).innerText())).toContain("11 matching rows")
        yield* use(async () => {
          await p.getByLabel("Search id, name or phone").fill("")
          await p.getByLabel("State", { exact: true }).selectOption("validated")
          await Promise.all([p.waitForURL(/state=validated/), p.getByRole("button", { name: "Show rows" }).click()])
        })
        expect(yield* use(() => p.getByText("No row matches.").isVisible())).toBe(true)

        // The account: the keyboard's first stop is the skip link; halt and lift with a reason.
        yield* use(() => p.goto(`${konsole.url}/account`))
        yield* use(() => p.keyboard.press("Tab"))
        expect(yield* use(() => p.evaluate(() => document.activeElement?.textContent))).toBe("Skip to content")
        // A form that lost its CSRF token is refused, and nothing is halted.
        yield* use(async () => {
          await p.evaluate(() => document.querySelectorAll("main input[name=csrf]").forEach((input) => input.remove()))
          await p.getByLabel("Reason").fill("no token")
          await Promise.all([p.waitForURL(/\/account\/halt$/), p.getByRole("button", { name: "Halt", exact: true }).click()])
        })
        expect(yield* use(() => p.getByRole("heading", { level: 1 }).innerText())).toBe("Form refused")
        expect(yield* konsole.activeHalt).toEqual(Option.none())
        yield* use(() => p.goto(`${konsole.url}/account`))
        yield* use(async () => {
          await p.getByLabel("Reason").fill("wrong file sent")
          await Promise.all([p.waitForURL(/\/account\/halt$/), p.getByRole("button", { name: "Halt", exact: true }).click()])
        })
        expect(yield* use(() => p.getByRole("status").innerText())).toBe("Halted by olga: wrong file sent.")
        expect(Option.map(yield* konsole.activeHalt, (h) => [h.by, h.reason])).toEqual(Option.some(["olga", "wrong file sent"]))
        yield* shot(p, "account")
        yield* use(async () => {
          await p.getByLabel("Reason").fill("the right file is in")
          await Promise.all([p.waitForURL(/\/account\/lift$/), p.getByRole("button", { name: "Lift", exact: true }).click()])
        })
        expect(yield* use(() => p.getByRole("status").innerText())).toContain("Halt lifted by olga: the right file is in.")
        expect(yield* konsole.activeHalt).toEqual(Option.none())

        for (const name of ["workers", "approvals", "attention"]) {
          yield* use(() => p.getByRole("navigation", { name: "Main" }).getByRole("link", { name: name[0].toUpperCase() + name.slice(1) }).click())
          yield* use(() => p.waitForURL(new RegExp(`/${name}$`)))
          expect(yield* use(() => p.getByRole("heading", { level: 1 }).innerText())).toBe(name[0].toUpperCase() + name.slice(1))
          yield* shot(p, name)
        }

        // On a phone: the page fits its width (wide tables scroll in their own region).
        yield* use(() => p.setViewportSize({ width: 390, height: 844 }))
        yield* use(() => p.goto(`${konsole.url}/batches`))
        expect(yield* use(() => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1))).toBe(true)
        yield* shot(p, "batches-phone")

        // A viewer sees the account, and no Halt.
        const v = yield* newPage(b)
        yield* signInAs(v, konsole.url, "vic")
        yield* use(() => v.goto(`${konsole.url}/account`))
        expect(yield* use(() => v.getByRole("button", { name: "Halt", exact: true }).count())).toBe(0)
        expect(yield* use(() => v.getByText("Halting and lifting need the operator or admin role.").isVisible())).toBe(true)
      }),
    180_000
  )
})
