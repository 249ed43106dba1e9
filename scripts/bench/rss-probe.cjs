// Preloaded into a measured child (node --require): on exit, writes its peak RSS (KiB) and CPU time
// (ms, user + system) as JSON to BENCH_RSS_FILE. CommonJS, so the probe itself does not load Node's
// ES module loader into a process that would not otherwise load it (the CLI starts as CommonJS).
const { writeFileSync } = require("node:fs")

const file = process.env.BENCH_RSS_FILE
if (file !== undefined) {
  process.on("exit", () => {
    const usage = process.resourceUsage()
    writeFileSync(file, JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }))
  })
}
