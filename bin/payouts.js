#!/usr/bin/env node
// Starts the bundled CLI (dist/, built by `npm run build`, which `npm ci` runs through `prepare`) with
// plain Node: no TypeScript is compiled at start. A missing build is said in one line rather than
// run through tsx: tsx is a development dependency (absent from a production install), and a slow
// silent fallback would hide the missing step and make every start cost seconds again.
import { existsSync } from "node:fs"

const main = new URL("../dist/main.js", import.meta.url)
if (!existsSync(main)) {
  process.stderr.write("payouts: the CLI is not built; run npm run build\n")
  process.exit(1)
}
await import(main.href)
