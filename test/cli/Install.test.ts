/**
 * Issue 31 item 8: one documented command puts `payouts` on the PATH, and no doc or help text sends a
 * reader to a bare `npx payouts` (outside the clone, npx fetches whatever the public registry holds
 * under that name).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version

const filesUnder = (dir: string, ext: RegExp): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path, ext) : ext.test(name) ? [path] : []
  })

/** The one place `npx payouts` may be written: the README's warning against it. */
const WARNING = "Never type `npx payouts` outside this clone"

describe("an install for daily use (issue 31 item 8)", () => {
  it("`npm install -g .` into a prefix gives a `payouts` that runs from another folder", () => {
    const prefix = tempDir("payouts-prefix-")
    const elsewhere = tempDir("payouts-elsewhere-")
    // The documented command, offline (a folder install links the clone: nothing is fetched). Scripts
    // off: `npm ci` already built dist/ (prepare), and a test must not rebuild the shared tree.
    const install = spawnSync("npm", ["install", "-g", ".", "--prefix", prefix, "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: ROOT,
      encoding: "utf8"
    })
    expect(install.status, install.stderr).toBe(0)
    const bin = join(prefix, "bin")
    // Through PATH, as a person types it, from a folder that is not the clone.
    const run = (args: ReadonlyArray<string>) =>
      spawnSync("payouts", args, { cwd: elsewhere, encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}`, NO_COLOR: "1" } })
    const shown = run(["--version"])
    expect(shown.status, shown.stderr).toBe(0)
    expect(shown.stdout.trim()).toBe(version)
    const help = run(["--help"])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("validate")
    expect(help.stdout + help.stderr).not.toMatch(/npx\s+payouts/)
  }, 120_000)

  it("no doc or help text shows a bare `npx payouts`", () => {
    const texts = [join(ROOT, "README.md"), ...filesUnder(join(ROOT, "docs"), /\.md$/), ...filesUnder(join(ROOT, "src", "cli"), /\.ts$/)]
    const found = texts.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (/npx\s+payouts/.test(line.replaceAll(WARNING, "")) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : []))
    )
    expect(found).toEqual([])
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("npm install -g .")
  })
})
