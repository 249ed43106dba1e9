// `npm start`: the sample batch against the embedded sandbox. The sample contains failing and
// cancelled test numbers on purpose, so exit 1 ("finished, some not completed") is a success here.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const args = [
  "bin/payouts.js", "run", "jobs/examples/marketplace-settlement.csv",
  "--sandbox", "--out", "out/sample", "--poll-interval", "500ms", ...process.argv.slice(2)
]
const { status } = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" })
process.exit(status === 0 || status === 1 ? 0 : status ?? 1)
