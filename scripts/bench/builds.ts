/**
 * The two CLIs the bench compares: HEAD (this checkout, built by `npm run bench` before it starts) and
 * the baseline, the code before issue 32, extracted with `git archive` into a temp folder kept per commit
 * and built there with the same node_modules (or its own `npm ci` when the lock file differs).
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Build } from "./measure.ts"

/** The last commit before issue 32 ("One path for every operation"). */
export const BASELINE_COMMIT = "6d8f07d"

const git = (root: string, ...args: ReadonlyArray<string>) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" }).trim()

/** Whether `path` in the working tree is as it was at `commit` (git diff --quiet exits 1 when not). */
const unchanged = (root: string, commit: string, path: string) => {
  try {
    execFileSync("git", ["-C", root, "diff", "--quiet", commit, "--", path], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * HEAD's build as it is when the bench starts, copied (bin/, dist/, package.json) into a temp folder
 * removed at exit: a build of the checkout during the bench does not change the CLI measured.
 */
export const headBuild = (root: string): Build => {
  if (!existsSync(join(root, "dist/main.js"))) throw new Error("dist/ is missing: run the bench as npm run bench (it builds first)")
  const dirty = git(root, "status", "--porcelain", "--", "src", "scripts/build.mjs", "scripts/bundle") !== ""
  const dir = mkdtempSync(join(tmpdir(), "payouts-bench-head-"))
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  for (const part of ["bin", "dist", "package.json"]) cpSync(join(root, part), join(dir, part), { recursive: true })
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
  return { label: "HEAD", dir, commit: `${git(root, "rev-parse", "--short", "HEAD")}${dirty ? "+uncommitted" : ""}` }
}

/** The baseline's checkout, built once per commit and kept in the temp folder for the next bench. */
export const baselineBuild = (root: string, commit: string, log: (text: string) => void): Build => {
  const full = git(root, "rev-parse", `${commit}^{commit}`)
  const dir = join(tmpdir(), `payouts-bench-baseline-${full.slice(0, 12)}`)
  const build = { label: "baseline", dir, commit: full.slice(0, 7) } as const
  if (existsSync(join(dir, ".bench-built"))) return build
  log(`preparing the baseline ${full.slice(0, 7)} in ${dir} (once per commit)`)
  const staging = `${dir}.partial`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  execFileSync("sh", ["-c", `git -C "${root}" archive ${full} | tar -x -C "${staging}"`], { stdio: "inherit" })
  // Same lock file: same packages, so the checkout's node_modules serve both builds.
  const sameLock = unchanged(root, full, "package-lock.json")
  if (sameLock) symlinkSync(join(root, "node_modules"), join(staging, "node_modules"))
  rmSync(dir, { recursive: true, force: true })
  renameSync(staging, dir)
  if (!sameLock) {
    execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" })
    // Its native module is built by its install script, which --ignore-scripts skipped: without it the
    // baseline's store does not open (exit 4, "state store unavailable").
    execFileSync("npm", ["rebuild", "better-sqlite3"], { cwd: dir, stdio: "inherit" })
  }
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
  writeFileSync(join(dir, ".bench-built"), `${new Date().toISOString()}\n`)
  return build
}
