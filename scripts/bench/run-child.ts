/**
 * One measured `payouts run` in its own process (for the cost curve): the parent starts the sandbox and
 * preloads the RSS probe; this runs the batch as the CLI wires it and writes its timings as JSON to
 * the file named last, so the process's peak RSS and CPU are the orchestrator's alone.
 *
 *   node --import tsx scripts/bench/run-child.ts SANDBOX_JSON CSV DIR OUT_JSON
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { freePort } from "./measure.ts"
import { runOrchestrator } from "./orchestrator.ts"

const [sandboxJson, file, dir, out] = process.argv.slice(2)
const sandbox = JSON.parse(sandboxJson) as { baseUrl: string; key: string; secret: string; sinkUrl: string }
const cpuBefore = process.cpuUsage()
const times = await runOrchestrator({
  sandbox,
  file,
  state: join(dir, "state.db"),
  outDir: dir,
  // The least reconcile grace the run allows (it is raised to request timeout + lease time): a POST cut
  // off on a loaded machine (ECONNRESET) is settled from the listing without a half-hour wait.
  settings: { concurrency: 32, pollIntervalMs: 100, pollMaxMs: 400, reconcileGraceMs: 0 },
  listen: { host: "127.0.0.1", port: await freePort() }
})
const cpu = process.cpuUsage(cpuBefore)
writeFileSync(out, JSON.stringify({ ...times, runCpuMs: (cpu.user + cpu.system) / 1000 }))
