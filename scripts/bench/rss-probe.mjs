// Preloaded into a measured child (node --import): on exit, writes its peak RSS (KiB) and CPU time
// (ms, user + system) as JSON to BENCH_RSS_FILE.
import { writeFileSync } from "node:fs"

const file = process.env.BENCH_RSS_FILE
if (file !== undefined) {
  process.on("exit", () => {
    const usage = process.resourceUsage()
    writeFileSync(file, JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }))
  })
}
