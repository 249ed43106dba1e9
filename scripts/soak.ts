/**
 * Crash-restart soak (issue 6): a batch against a sandbox with faults on, the orchestrator (a real
 * `payouts run` child process) SIGKILLed at seeded random moments, then run to completion; checked
 * against the sandbox's own payout list. Prints `duplicates=0 lost=0 mismatched=0 ... seed=S`.
 *
 *   npx tsx scripts/soak.ts [--rounds 20] [--rows 2000] [--seed S] [--keep]
 *
 * The sandbox runs in this driver process (never inside the killed one). Two kill modes alternate
 * at random: after a random delay, or synchronously at the moment the sandbox commits the k-th new
 * payout, i.e. between the POST and the moment its answer could reach the orchestrator's store.
 */
import { Effect, Exit, Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import Papa from "papaparse"
import { launchSandbox } from "../src/sandbox/Sandbox.ts"
import { rowToken } from "../src/store/Token.ts"

export interface SoakOptions {
  readonly rounds: number
  readonly rows: number
  readonly seed: number
  /** Keep the working folder (CSV, state, ledger, child logs) for inspection. */
  readonly keep?: boolean
  /** Longest wait before a timed kill, in ms. */
  readonly maxKillDelayMs?: number
  /** Kill only at the moment of a payout's commit: every round is sure to kill (the short soak in CI). */
  readonly commitKillsOnly?: boolean
  readonly log?: (line: string) => void
}

export interface SoakResult {
  readonly seed: number
  readonly rounds: number
  readonly kills: number
  readonly killsAfterCommit: number
  readonly rows: number
  readonly payouts: number
  readonly duplicates: number
  readonly lost: number
  readonly mismatched: number
  readonly invariantOk: boolean
  readonly finalExit: number | null
  readonly faultCounters: Readonly<Record<string, number>>
  readonly durationMs: number
  readonly dir: string
  /** Every file the runs wrote (ledger, summary, child stdout/stderr), for the secret check. */
  readonly outputs: ReadonlyArray<string>
  readonly secret: string
  readonly key: string
  readonly problems: ReadonlyArray<string>
}

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)))
const BIN = join(ROOT, "bin", "payouts.js")

/** mulberry32: a small seeded PRNG, so a seed replays the same kills and the same file. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const soakFaults = (seed: number) =>
  [
    "payout.error_before=0.03",
    "payout.error_after=0.03",
    "payout.reset_after=0.02",
    "payout.hold_after=0.01",
    "status.error_before=0.02",
    "*.burst=0.002",
    "*.burst_len=3",
    "transactions.list_lag=1s",
    "payout.webhook_dup=0.3",
    "payout.webhook_delay=0ms-300ms",
    "payout.webhook_reorder=0.3",
    "*.latency=1ms-4ms",
    `seed=${seed}`
  ].join(",")

const TEST_NUMBERS = { failure: "+237670000002", delayed: "+237670000003", cancelled: "+237670000004" }

/** The batch: mostly ordinary numbers (they succeed), some test numbers that fail, cancel or take 30 minutes. */
export const soakCsv = (rows: number, random: () => number) => {
  const lines = ["id,amount,currency,operator,phone,name,email"]
  for (let i = 0; i < rows; i++) {
    const r = random()
    const phone =
      r < 0.02 ? TEST_NUMBERS.failure : r < 0.04 ? TEST_NUMBERS.cancelled : r < 0.05 ? TEST_NUMBERS.delayed : `+23767${String(1_000_000 + i).slice(-7)}`
    const amount = 500 + Math.floor(random() * 9_500)
    lines.push(`S-${i + 1},${amount},XAF,${random() < 0.5 ? "carrier1_cm" : "carrier2_cm"},${phone},Seller ${i + 1},seller${i + 1}@example.com`)
  }
  return `${lines.join("\n")}\n`
}

const freePort = () =>
  new Promise<number>((ok, ko) => {
    const server = createServer()
    server.once("error", ko)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => ok(port))
    })
  })

interface Child {
  readonly proc: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const spawnRun = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, logBase: string): Child => {
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  proc.stdout?.setEncoding("utf8").on("data", (t: string) => (out += t))
  proc.stderr?.setEncoding("utf8").on("data", (t: string) => (err += t))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    proc.on("close", (code, signal) => {
      writeFileSync(`${logBase}.stdout.log`, out)
      writeFileSync(`${logBase}.stderr.log`, err)
      ok({ code, signal })
    })
  )
  return { proc, exited }
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms))

export const runSoak = async (options: SoakOptions): Promise<SoakResult> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const started = Date.now()
  const random = prng(options.seed)
  const dir = mkdtempSync(join(tmpdir(), "payouts-soak-"))
  const file = join(dir, "soak.csv")
  const state = join(dir, "state.db")
  const csv = soakCsv(options.rows, random)
  writeFileSync(file, csv)
  const batchId = createHash("sha256").update(csv).digest("hex").slice(0, 16)
  const key = `soak-key-${randomBytes(6).toString("hex")}`
  const secret = `soak-secret-${randomBytes(12).toString("hex")}`
  const scope = Effect.runSync(Scope.make())
  const sandbox = await Effect.runPromise(
    Scope.extend(
      launchSandbox({
        key,
        secret,
        timeScale: 600,
        payoutDelaySeconds: 10,
        webhookRetryMillis: 50,
        webhookMaxAttempts: 4,
        fund: { XAF: 200_000_000 },
        faults: soakFaults(options.seed)
      }),
      scope
    )
  )
  const outputs: Array<string> = []
  const problems: Array<string> = []
  try {
    // Kill on commit: the sandbox's transaction table is watched for new payouts.
    let onPayout: (() => void) | undefined
    const table = sandbox.state.transactions
    Reflect.set(
      sandbox.state,
      "transactions",
      new Proxy(table, {
        set(target, property, value: { type?: string }) {
          Reflect.set(target, property, value)
          if (value?.type === "payout") onPayout?.()
          return true
        }
      })
    )
    const listen = `127.0.0.1:${await freePort()}`
    const env = { ...process.env, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: key, PAYOUTS_API_SECRET: secret, NO_COLOR: "1" }
    const args = [
      "run", file, "--state", state, "--concurrency", "8", "--poll-interval", "100ms", "--poll-max", "1s",
      "--reconcile-grace", "2s", "--request-timeout", "1500ms", "--ledger-every", "500ms", "--progress-every", "1h",
      "--listen", listen
    ]
    const maxDelay = options.maxKillDelayMs ?? 5_000
    let kills = 0
    let killsAfterCommit = 0
    let attempt = 0
    let finished = false
    while (kills < options.rounds && attempt < options.rounds * 3) {
      attempt++
      const logBase = join(dir, `round-${attempt}`)
      outputs.push(`${logBase}.stdout.log`, `${logBase}.stderr.log`)
      const child = spawnRun(args, env, logBase)
      const afterCommit = random() < 0.5 || options.commitKillsOnly === true
      const delay = 300 + Math.floor(random() * maxDelay)
      const nth = 1 + Math.floor(random() * Math.min(60, Math.max(1, options.rows / 4)))
      let killedAt: string | undefined
      const kill = (how: string) => {
        if (killedAt !== undefined || child.proc.exitCode !== null) return
        killedAt = how
        child.proc.kill("SIGKILL")
      }
      let seen = 0
      if (afterCommit) {
        // Synchronous with the commit: the answer has not been written to the socket yet.
        onPayout = () => {
          if (++seen >= nth) kill(`on commit of payout #${nth} of the round`)
        }
      }
      // A round waiting for a commit that never comes (nothing left to send) falls back to a timer.
      const timeout = afterCommit ? delay + 15_000 : delay
      const timer = setTimeout(() => kill(`after ${timeout} ms`), timeout)
      const exit = await child.exited
      clearTimeout(timer)
      onPayout = undefined
      if (exit.signal === "SIGKILL" && killedAt !== undefined) {
        kills++
        if (killedAt.startsWith("on commit")) killsAfterCommit++
        log(`round ${attempt}: SIGKILL ${killedAt} (${kills}/${options.rounds})`)
      } else {
        log(`round ${attempt}: exited by itself with ${exit.code ?? exit.signal}`)
        if (exit.code === 0 || exit.code === 1) {
          finished = true
          break
        }
      }
    }
    // Run to completion: no more kills.
    let finalExit: number | null = null
    for (let i = 0; i < 6 && (finalExit === null || finalExit > 1); i++) {
      const logBase = join(dir, `final-${i + 1}`)
      outputs.push(`${logBase}.stdout.log`, `${logBase}.stderr.log`)
      const exit = await spawnRun(args, env, logBase).exited
      finalExit = exit.code
      log(`final run ${i + 1}: exit ${exit.code ?? exit.signal}`)
      if (finalExit === 3) await sleep(1_000)
    }
    if (finished) log("the batch finished before every kill round was used")

    // Let webhooks still being retried and the last transitions settle, then compare.
    await sleep(300)
    const headers = { "X-API-Key": key, "X-API-Secret": secret, Accept: "application/json" }
    const get = async (path: string) => (await (await fetch(`${sandbox.origin}${path}`, { headers })).json()) as Record<string, unknown>
    const payouts = (await get("/__sandbox/payouts")).payouts as Array<{ reference: string; description: string; status: string; amount: number }>
    const invariants = (await get("/__sandbox/invariants")) as { ok: boolean; violations?: ReadonlyArray<string> }
    const faultCounters = ((await get("/__sandbox/faults")).counters ?? {}) as Record<string, number>

    const expected = new Map(Array.from({ length: options.rows }, (_, idx) => [rowToken(batchId, idx), idx]))
    const byToken = new Map<string, Array<(typeof payouts)[number]>>()
    let duplicates = 0
    for (const payout of payouts) {
      const token = /^\[([^\]]+)\]/.exec(payout.description)?.[1]
      if (token === undefined || !expected.has(token)) {
        duplicates++
        problems.push(`payout ${payout.reference} carries no token of this batch: ${payout.description}`)
        continue
      }
      byToken.set(token, [...(byToken.get(token) ?? []), payout])
    }
    for (const [token, list] of byToken) {
      if (list.length > 1) {
        duplicates += list.length - 1
        problems.push(`row ${expected.get(token)} (token ${token}) paid ${list.length} times: ${list.map((p) => p.reference).join(", ")}`)
      }
    }
    let lost = 0
    for (const [token, idx] of expected) {
      if (!byToken.has(token)) {
        lost++
        problems.push(`row ${idx} (token ${token}) was never paid`)
      }
    }
    const ledgerFile = join(dir, "soak.ledger.csv")
    outputs.push(ledgerFile, join(dir, "soak.summary.json"))
    // The state store too (with its WAL): nothing the runs wrote may hold the secret.
    for (const name of readdirSync(dir)) if (name.startsWith("state.db")) outputs.push(join(dir, name))
    const ledger = Papa.parse<Record<string, string>>(readFileSync(ledgerFile, "utf8"), { header: true, skipEmptyLines: true }).data
    let mismatched = 0
    if (ledger.length !== options.rows) {
      mismatched += Math.abs(options.rows - ledger.length)
      problems.push(`the ledger has ${ledger.length} rows, the input ${options.rows}`)
    }
    for (const row of ledger) {
      const idx = Number(row.line) - 2
      const paid = byToken.get(rowToken(batchId, idx)) ?? []
      const match = paid.find((p) => p.reference === row.reference)
      if (paid.length !== 1 || match === undefined || match.status !== row.status) {
        mismatched++
        problems.push(`ledger line ${row.line}: ${row.status} ${row.reference || "(no reference)"}; sandbox: ${paid.map((p) => `${p.status} ${p.reference}`).join(", ") || "nothing"}`)
      }
    }
    if (!invariants.ok) problems.push(`money invariant violated: ${(invariants.violations ?? []).join("; ")}`)
    return {
      seed: options.seed,
      rounds: options.rounds,
      kills,
      killsAfterCommit,
      rows: options.rows,
      payouts: payouts.length,
      duplicates,
      lost,
      mismatched,
      invariantOk: invariants.ok,
      finalExit,
      faultCounters,
      durationMs: Date.now() - started,
      dir,
      outputs,
      secret,
      key,
      problems
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (options.keep !== true && problems.length === 0) rmSync(dir, { recursive: true, force: true })
  }
}

export const formatResult = (r: SoakResult) =>
  [
    `duplicates=${r.duplicates} lost=${r.lost} mismatched=${r.mismatched} invariant=${r.invariantOk ? "ok" : "VIOLATED"}`,
    `seed=${r.seed} rounds=${r.rounds} kills=${r.kills} kills_on_commit=${r.killsAfterCommit} rows=${r.rows} payouts=${r.payouts} final_exit=${r.finalExit} duration=${(r.durationMs / 1000).toFixed(1)}s`,
    `faults fired: ${Object.entries(r.faultCounters).filter(([k]) => k !== "requests").map(([k, v]) => `${k}=${v}`).join(" ")} (requests=${r.faultCounters.requests ?? 0})`
  ].join("\n")

const flag = (argv: ReadonlyArray<string>, name: string) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2)
  const seed = Number(flag(argv, "seed") ?? process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
  const options: SoakOptions = {
    rounds: Number(flag(argv, "rounds") ?? 20),
    rows: Number(flag(argv, "rows") ?? 2_000),
    seed,
    keep: argv.includes("--keep")
  }
  process.stderr.write(`soak: seed=${seed} rounds=${options.rounds} rows=${options.rows} (replay: npx tsx scripts/soak.ts --seed ${seed} --rounds ${options.rounds} --rows ${options.rows})\n`)
  runSoak(options).then(
    (result) => {
      for (const p of result.problems.slice(0, 30)) process.stderr.write(`PROBLEM ${p}\n`)
      if (result.problems.length > 0) process.stderr.write(`working folder kept: ${result.dir}\n`)
      process.stdout.write(`${formatResult(result)}\n`)
      const ok = result.duplicates === 0 && result.lost === 0 && result.mismatched === 0 && result.invariantOk && result.kills >= Math.min(result.rounds, 1)
      // undici keeps idle sockets to the stopped sandbox: exit explicitly.
      process.exit(ok ? 0 : 1)
    },
    (error: unknown) => {
      process.stderr.write(`soak failed (seed=${seed}): ${String(error)}\n`)
      process.exit(1)
    }
  )
}
