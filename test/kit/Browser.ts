/** Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core. */
import { Effect } from "effect"
import * as Fs from "node:fs"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"

const CHROMIUM = "/usr/bin/chromium"
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]

/** The browser for the scope; a missing Chromium fails the test, never skips it. */
export const browser = Effect.acquireRelease(
  Effect.gen(function* () {
    if (!Fs.existsSync(CHROMIUM)) return yield* Effect.die(new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium); this test does not skip.`))
    return yield* Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, args: ARGS }))
  }),
  (b: Browser) => Effect.promise(() => b.close())
)

/** A page in a context of its own (its own cookies: one person), 1280 px wide unless told. */
export const newPage = (b: Browser, viewport = { width: 1280, height: 900 }) =>
  Effect.acquireRelease(Effect.promise(() => b.newContext({ viewport }).then((c) => c.newPage())), (p) => Effect.promise(() => p.context().close()))

/** What the page shows at the window's size, to test-output/<name>.png (the manual's pictures come from there). */
export const screenshot = (p: Page, name: string) =>
  Effect.promise(async () => {
    Fs.mkdirSync("test-output", { recursive: true })
    await p.screenshot({ path: join("test-output", `${name}.png`) })
  })
