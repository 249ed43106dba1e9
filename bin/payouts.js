#!/usr/bin/env node
// Starts the bundled CLI (dist/, built by `npm run build`, which `npm ci` runs through `prepare`) with
// plain Node: no TypeScript is compiled at start. A missing build is said in one line rather than
// run through tsx: tsx is a development dependency (absent from a production install), and a slow
// silent fallback would hide the missing step and make every start cost seconds again.
// CommonJS (bin/package.json), as is all a start loads (dist/load.cjs): an ES module here would load
// Node's ES module loader, ~10 ms of every start.
let main
try {
  main = require.resolve("../dist/main.js")
} catch {
  process.stderr.write("payouts: the CLI is not built; run npm run build\n")
  process.exit(1)
}
require(main)
