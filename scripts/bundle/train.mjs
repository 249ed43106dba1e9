// The build's training runs: after dist/ is written, `payouts --help` and the `payouts validate` of a
// small file refused at intake run from it, each in a child process that, as it exits, replaces the
// code cache of every chunk it loaded by the cache V8 makes of it then. That cache holds the functions
// the run compiled (argument parsing, the Effect runtime, the intake), not only the top levels the
// build compiles: a start deserialises them instead of compiling each on its first call (~40 ms of a
// refused validate). Each run starts from the caches the one before wrote, so the last holds both.
// A chunk no run loads keeps the cache of its top level. The runs are the CLI's own code on a file
// of our own, in a temporary folder, with no settings of the user's (HOME and XDG folders there): it
// reads nothing else and never reaches the network (a file refused at intake asks no service).
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/**
 * Ten rows, three invalid on their own (a phone number, an amount, an e-mail): refused whole, exit 2.
 * The same file the build trains the code caches on (scripts/bundle/train.mjs) and the bench measures
 * (scripts/bench.ts), so the start measured is the start trained.
 */
const REFUSED_CSV = readFileSync(fileURLToPath(new URL("./refused-10.csv", import.meta.url)), "utf8")

/** In the child: runs the CLI of `dist` on `args` and writes the caches of what it loaded at exit. */
const trainRun = (dist, args) => {
  const { cacheUrl, compiledScripts, start } = createRequire(import.meta.url)(join(dist, "load.cjs"))
  process.argv = [process.argv[0], join(dist, "main.js"), ...args]
  process.on("exit", () => {
    for (const [href, script] of compiledScripts()) writeFileSync(cacheUrl(new URL(href)), script.createCachedData())
  })
  start(pathToFileURL(join(dist, "main-body.js")))
}

/** Trains the code caches of the CLI written in `dist` (see above); fails on a run's unexpected exit. */
export const trainCaches = (dist) => {
  const dir = mkdtempSync(join(tmpdir(), "payouts-train-"))
  try {
    const file = join(dir, "refused.csv")
    writeFileSync(file, REFUSED_CSV)
    for (const sub of ["home", "config", "state", "out"]) mkdirSync(join(dir, sub))
    const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" }
    const connection = ["--base-url", "http://127.0.0.1:9/v1", "--api-key", "train", "--api-secret", "train"]
    const runs = [
      { args: ["--help"], code: 0 },
      { args: ["validate", file, ...connection, "--state", join(dir, "state", "train.db"), "--out", join(dir, "out")], code: 2 }
    ]
    for (const { args, code } of runs) {
      const ran = spawnSync(process.execPath, [fileURLToPath(import.meta.url), dist, ...args], { env, cwd: dir, encoding: "utf8" })
      if (ran.status !== code) throw new Error(`training run payouts ${args[0]} exited ${ran.status}, expected ${code}:\n${ran.stderr}`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) trainRun(process.argv[2], process.argv.slice(3))
