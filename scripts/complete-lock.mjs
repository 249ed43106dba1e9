// The npm registry this project installs from lacks some platform builds of optional native packages
// (rollup's, msgpackr-extract's) at the locked versions. npm then leaves them out of package-lock.json,
// and `npm ci` refuses the lock as out of sync. This adds an entry (version, os, cpu) for each missing
// optional package: npm ci checks them, and skips installing them on a platform they do not fit.
// Run after regenerating the lock: `node scripts/complete-lock.mjs`.
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages
let added = 0
for (const [parent, info] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(info.optionalDependencies ?? {})) {
    if (packages[`${parent}/node_modules/${name}`] || packages[`node_modules/${name}`]) continue
    let meta = {}
    try {
      const out = execFileSync("npm", ["view", name, "--json", "os", "cpu", "libc"], { encoding: "utf8" })
      meta = out.trim() === "" ? {} : JSON.parse(out)
      if (Array.isArray(meta)) meta = meta[meta.length - 1]
    } catch {
      // A package npm cannot describe keeps no platform fields: the lock stays as npm wrote it.
    }
    packages[`node_modules/${name}`] = Object.fromEntries(
      Object.entries({
        version: range.replace(/^[\^~]/, ""), cpu: meta.cpu, os: meta.os, libc: meta.libc,
        optional: true, dev: info.dev, peer: info.peer
      }).filter(([, v]) => v !== undefined)
    )
    added++
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)))
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`added ${added} optional package entries`)
