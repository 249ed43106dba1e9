/**
 * Crash-restart soak (issues 6 and 10): a batch against a sandbox with faults on, the orchestrator (a
 * real `payouts run` child process) SIGKILLed at seeded random moments, then run to completion; checked
 * against the sandbox's own payout list. Prints `duplicates=0 lost=0 alarmed=N mismatched=0 ... seed=S`.
 *
 *   npx tsx scripts/soak.ts [--rounds 20] [--rows 300] [--seed S] [--pause-rounds 0.33] [--rate R] [--keep] [--tsx]
 *
 * The sandbox runs in this driver process (never inside the killed one), in real time (time scale 1):
 * its `Date` header then agrees with our clock, so reconciliation may prove a payout absent and resend
 * it (DESIGN 7, rule 7). Its faults are unkind but legal: 5xx before and after commit, resets, held
 * answers, 429 bursts, commits held past the client's timeout and made anyway (`commit_delay`), a
 * listing that lags per transaction (`list_lag` + `list_jitter`), comes shuffled and whose pagination
 * lies (`pages_lie`, picked by seed). Never `desc_mangle`: an altered listing cannot prove absence, so
 * every unknown row would rightly wait for a person (exit 5).
 *
 * Two kill modes alternate at random: after a random delay, or synchronously at the moment the sandbox
 * commits the k-th new payout, i.e. between the POST and the moment its answer could reach the
 * orchestrator's store.
 *
 * Pause rounds (issue 11, a share `--pause-rounds` drawn from the seed, default 1/3): the same two
 * moments SIGSTOP the runner instead; after its lease TTL + 1 s a second runner is started on the same
 * file and store and runs 2-8 s, then the first gets SIGCONT while the second still runs. The first
 * must send no payout (a relay in front of the sandbox counts its POSTs after the SIGCONT:
 * `sends_after_resume`) and should end with exit 3 within 20 s (else it is SIGKILLed and a problem is
 * reported); the second is then SIGKILLed 0-3 s later unless it ended by itself.
 *
 * Verdict: duplicates (a token paid more than once), lost (a row the service never paid and the run
 * did not put under alarm), mismatched (ledger against the sandbox) and the money invariant must all
 * be clean. Rows left under alarm (final exit 5, DESIGN 9) are counted apart as `alarmed=N`, each
 * printed with its reason, its cause (`alarmCause`, from its events in the state store and the soak's
 * own kills) and its last events; they fail the soak only if also paid twice.
 */
import { Effect, Exit, Scope } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { basename, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import Papa from "papaparse"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { launchSandbox } from "../src/sandbox/Sandbox.ts"

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
  /**
   * Run the children through bin/payouts.js (the `npm run build` bundle in dist/) instead of the
   * soak's own esbuild bundle of the same sources, made at its start and not changed by edits (or a
   * rebuild) while it runs.
   */
  readonly tsx?: boolean
  readonly log?: (line: string) => void
  /**
   * Share of rounds (0..1, drawn from the seed) that SIGSTOP the runner instead of killing it (issue
   * 11): it is paused past its lease, a second runner is started on the same file and store, then the
   * first is resumed and must send nothing (it should exit 3). Default 0 (the short soak); the CLI
   * uses 1/3 (`--pause-rounds`).
   */
  readonly pauseShare?: number
  /**
   * `--rate` for every run (requests per second), none by default. A slower batch gives every round
   * something to cut: `--pause-rounds 1 --rate 10` fits 20 pause rounds in about 1,500 rows.
   */
  readonly rate?: number
  /** The sandbox's faults instead of `soakFaults(seed)` (e.g. only a listing lag, to measure it). */
  readonly faults?: string
  /** A wait before each restart after a kill (a supervisor's delay): dead time that is no listing lag. */
  readonly restartAfterMs?: number
}

/** A row the final run left under alarm, with what the service holds for it and the runs said about it. */
export interface SoakAlarm {
  readonly line: number
  readonly token: string
  readonly reason: string
  /** Payouts carrying the row's token in the sandbox (0: unpaid; 1: paid once, a person adopts it). */
  readonly paid: number
  /** The row's last error in the ledger (e.g. how its one resend was answered), if any. */
  readonly lastError: string | undefined
  /** Why, from the row's events in the state store and the soak's own kills (see `alarmCause`). */
  readonly cause: string
  /** The row's events (time, transition, source, detail cut short), each with the run it happened in. */
  readonly history: ReadonlyArray<string>
  /** The runs' stderr lines about this row (waits, resends, alarm), oldest first, as `run: text`. */
  readonly trail: ReadonlyArray<string>
}

export interface SoakResult {
  readonly seed: number
  readonly rounds: number
  readonly kills: number
  readonly killsAfterCommit: number
  /** SIGSTOP/SIGCONT rounds (a second runner started while the first was paused past its lease). */
  readonly pauses: number
  /** Payout POSTs a paused runner sent after it was resumed (must be 0: it lost its lease). */
  readonly sendsAfterResume: number
  /** Exit of each paused runner after its SIGCONT (3 expected: lease lost), `killed` if the soak had to. */
  readonly pauseExits: Readonly<Record<string, number>>
  readonly rows: number
  readonly payouts: number
  readonly duplicates: number
  /** Rows the service never paid that the run did not put under alarm: silently unpaid. */
  readonly lost: number
  /** Rows left under alarm for a person (final exit 5), paid or not; reported, not failed. */
  readonly alarmed: number
  readonly alarms: ReadonlyArray<SoakAlarm>
  /** Alarmed rows by cause (see `alarmCause`). */
  readonly alarmCauses: Readonly<Record<string, number>>
  readonly mismatched: number
  readonly invariantOk: boolean
  readonly finalExit: number | null
  /** The `pages_lie` the seed picked. */
  readonly pagesLie: string
  readonly faultCounters: Readonly<Record<string, number>>
  readonly durationMs: number
  /** The sources the children ran: the commit, `+dirty` when src/ had uncommitted changes. */
  readonly source: string
  readonly dir: string
  /** Every file the runs wrote (ledger, summary, child stdout/stderr), for the secret check. */
  readonly outputs: ReadonlyArray<string>
  readonly secret: string
  readonly key: string
  readonly problems: ReadonlyArray<string>
}

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)))
const BIN = join(ROOT, "bin", "payouts.js")
/**
 * Time each run is given to gather the evidence for its unknown rows (DESIGN 7: adoption, or a resend
 * after the grace, raised to request timeout + lease time + twice the p99 listing lag, and two syncs
 * half a grace apart, in one run), beyond the time the soak has already spent killing runners.
 */
export const EVIDENCE_ALLOWANCE_S = 120

/**
 * `--reconcile-deadline` of a run started `elapsedMs` into the soak. The deadline counts from the end
 * of a row's request, so a row left unknown by round 1 must still be provable by the final run: the
 * soak compresses into minutes what restarts spread over in production (default deadline 2 h), and a
 * fixed short deadline would turn every early unknown row into an alarm while the rounds go on.
 */
export const reconcileDeadline = (elapsedMs: number) => `${Math.ceil(elapsedMs / 1000) + EVIDENCE_ALLOWANCE_S}s`

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

/** The pagination lie of a seed: each seed replays one of them, and seeds in a row cover all three. */
export const pagesLieOf = (seed: number) => (["one", "emptymid", "dupref"] as const)[Math.abs(seed) % 3]

/**
 * Every fault here leaves the listing faithful (each payout listed, late and out of order perhaps,
 * with its exact description, amount and currency), so a row whose outcome is unknown can always be
 * settled: adopted by its `[token]`, or resent once the listing proves it absent.
 */
export const soakFaults = (seed: number) =>
  [
    "payout.error_before=0.03",
    "payout.error_after=0.03",
    "payout.reset_after=0.02",
    "payout.hold_after=0.01",
    // A share of POSTs held past the client's 1.5 s timeout, then created anyway.
    "payout.commit_delay=0.1:2s-4s",
    "status.error_before=0.02",
    "*.burst=0.002",
    "*.burst_len=3",
    "transactions.list_lag=1s",
    "transactions.list_jitter=0s-4s",
    `transactions.pages_lie=${pagesLieOf(seed)}`,
    "transactions.list_order=shuffle",
    "payout.webhook_dup=0.3",
    "payout.webhook_delay=0ms-300ms",
    "payout.webhook_reorder=0.3",
    "*.latency=1ms-4ms",
    `seed=${seed}`
  ].join(",")

const TEST_NUMBERS = { failure: "+237670000002", cancelled: "+237670000004" }

/**
 * The batch: mostly ordinary numbers (they succeed), some test numbers that fail or cancel. Not the
 * delayed test number: it takes 30 sandbox minutes, i.e. 30 real minutes at time scale 1.
 */
export const soakCsv = (rows: number, random: () => number) => {
  const lines = ["id,amount,currency,operator,phone,name,email"]
  for (let i = 0; i < rows; i++) {
    const r = random()
    const phone =
      r < 0.02 ? TEST_NUMBERS.failure : r < 0.04 ? TEST_NUMBERS.cancelled : `+23767${String(1_000_000 + i).slice(-7)}`
    const amount = 500 + Math.floor(random() * 9_500)
    // A test number is one recipient (one phone, one recipient), an ordinary number its row's seller.
    const name = r < 0.04 ? `Test ${r < 0.02 ? "Failure" : "Cancelled"}` : `Seller ${i + 1}`
    lines.push(`S-${i + 1},${amount},XAF,${random() < 0.5 ? "carrier1_cm" : "carrier2_cm"},${phone},${name},seller${i + 1}@example.com`)
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
  /** The child's first output: it has loaded and started the run (loading alone takes seconds under tsx). */
  readonly ready: Promise<void>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** The commit of the sources (and whether src/ differs from it), to tie figures to code. */
const sourceStamp = (): string => {
  const git = (...args: ReadonlyArray<string>) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" })
  const head = git("rev-parse", "--short", "HEAD")
  if (head.status !== 0) return "unknown"
  const dirty = git("status", "--porcelain", "--", "src").stdout.trim() !== ""
  return `${head.stdout.trim()}${dirty ? "+dirty" : ""}`
}

/**
 * The CLI (src/cli/main.ts) bundled once with esbuild when the soak starts: edits to src/ or a rebuild
 * of dist/ while it runs do not change what its children run. Packages stay external, so the bundle lives under
 * node_modules/.cache to resolve them from the project; it is removed when the soak ends.
 */
const bundleCli = async (): Promise<{ readonly entry: string; readonly remove: () => void }> => {
  const cache = join(ROOT, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "payouts-soak-"))
  const entry = join(dir, "payouts.mjs")
  const { build } = await import("esbuild")
  await build({
    entryPoints: [join(ROOT, "src", "cli", "main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: entry,
    logLevel: "warning"
  })
  return { entry, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

const spawnRun = (entry: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, logBase: string): Child => {
  const proc = spawn(process.execPath, [entry, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  let started: () => void = () => {}
  const ready = new Promise<void>((ok) => (started = ok))
  proc.stdout?.setEncoding("utf8").on("data", (t: string) => {
    out += t
    started()
  })
  proc.stderr?.setEncoding("utf8").on("data", (t: string) => {
    err += t
    started()
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    proc.on("close", (code, signal) => {
      writeFileSync(`${logBase}.stdout.log`, out)
      writeFileSync(`${logBase}.stderr.log`, err)
      started()
      ok({ code, signal })
    })
  )
  return { proc, ready, exited }
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms))

/** Whether the TCP connection whose local port (on 127.0.0.1) is `port` belongs to process `pid` (Linux /proc). */
const connectionOwnedBy = (port: number, pid: number): boolean => {
  try {
    const hex = port.toString(16).toUpperCase().padStart(4, "0")
    const inodes = new Set(
      ["/proc/net/tcp", "/proc/net/tcp6"].filter(existsSync).flatMap((f) =>
        readFileSync(f, "utf8").split("\n").slice(1).map((l) => l.trim().split(/\s+/)).filter((c) => c[1]?.endsWith(`:${hex}`)).map((c) => c[9])
      )
    )
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? "")
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

/**
 * A TCP relay in front of the sandbox that every child of the soak talks to (one fixed address, so
 * every run names the same account): bytes pass unchanged both ways, a reset or close on one side
 * destroys the other. `watch(pid)` counts, from then on, the payout POST request lines written on
 * that process's connections: a paused runner whose lease was taken must write none after its SIGCONT.
 */
const countingRelay = async (origin: string) => {
  const target = new URL(origin)
  const sockets = new Set<Socket>()
  const conns = new Set<{ client: Socket; owner: number | undefined }>()
  let watched: number | undefined
  let posts = 0
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    sockets.add(client).add(upstream)
    const conn = { client, owner: undefined as number | undefined }
    conns.add(conn)
    if (watched !== undefined && connectionOwnedBy(client.remotePort ?? 0, watched)) conn.owner = watched
    client.on("data", (chunk: Buffer) => {
      if (watched !== undefined && conn.owner === watched) posts += (chunk.toString("latin1").match(/(^|\n)POST \/v1\/payments\/payout\//g) ?? []).length
    })
    client.pipe(upstream).pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
      conns.delete(conn)
    }
    client.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    origin: `http://127.0.0.1:${port}`,
    watch: (pid: number | undefined) => {
      watched = pid
      if (pid !== undefined) for (const c of conns) if (connectionOwnedBy(c.client.remotePort ?? 0, pid)) c.owner = pid
    },
    posts: () => posts,
    reset: () => {
      posts = 0
    },
    close: () => {
      for (const s of sockets) s.destroy()
      server.close()
    }
  }
}

/** One child run of the soak: when it ran and whether the soak SIGKILLed it. */
export interface RunSpan {
  readonly name: string
  readonly start: number
  end: number
  killed: boolean
}

const runAt = (runs: ReadonlyArray<RunSpan>, at: number) => runs.find((r) => r.start <= at && at <= r.end)

export interface RowEvent {
  readonly idx: number
  readonly at: number
  readonly fromState: string | null
  readonly toState: string
  readonly source: string
  readonly detail: string | null
}

/** One read-only query of the runs' state store (SQLite), after the runs have ended. */
const queryStore = <A>(filename: string, query: (sql: SqliteClient.SqliteClient) => Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(SqliteClient.make({ filename, readonly: true }), query)).pipe(Effect.provide(Reactivity.layer))
  ) as Promise<ReadonlyArray<A>>

/** The token of each row of the batch, by index. */
const readRowTokens = (filename: string, batchId: string) =>
  queryStore<{ idx: number; token: string }>(filename, (sql) => sql`SELECT idx, token FROM rows WHERE batch_id = ${batchId}`).then(
    (rows) => new Map(rows.map((r) => [r.idx, r.token]))
  )

/** The row events (DESIGN 7: every status change, with its evidence) of some rows. */
const readRowEvents = (filename: string, batchId: string, idxs: ReadonlyArray<number>) =>
  queryStore<{ idx: number; at: number; from_state: string | null; to_state: string; source: string; detail: string | null }>(
    filename,
    (sql) => sql`SELECT idx, at, from_state, to_state, source, detail FROM row_events WHERE batch_id = ${batchId} AND ${sql.in("idx", idxs)} ORDER BY seq`
  ).then((rows) => rows.map((r): RowEvent => ({ idx: r.idx, at: r.at, fromState: r.from_state, toState: r.to_state, source: r.source, detail: r.detail })))

/**
 * Why a row ended under alarm, from its events and the soak's kills. The causes the soak can show:
 * - `resend cut by SIGKILL`: its one automatic resend (rule 6) was claimed by a run the soak then killed,
 *   so whether its POST left is unknown again;
 * - `resend released unsent, then cut by SIGKILL`: the resend was put back unsent (lease lapse), sent
 *   again as an ordinary claim by a run the soak killed; the resend count stayed at one;
 * - `resend answered ambiguously`: the resend met a fault again (5xx, reset, timeout);
 * - `deadline`: no proof either way before `--reconcile-deadline`;
 * - `duplicate`: several payouts carry the token (also counted in duplicates);
 * - anything else is `unexplained`.
 */
export const alarmCause = (reason: string, events: ReadonlyArray<RowEvent>, runs: ReadonlyArray<RunSpan>): string => {
  if (/payouts carry (this row's|its) token|duplicate/.test(reason)) return "duplicate"
  if (reason.startsWith("no proof either way")) return "deadline"
  if (!reason.startsWith("resent once already")) return "unexplained"
  const resend = events.map((e) => e.detail?.startsWith("resend:") === true).lastIndexOf(true)
  if (resend < 0) return "unexplained"
  const after = events.slice(resend + 1)
  const left = after.find((e) => e.fromState === "submitting")
  if (left === undefined) return "unexplained"
  const cutByKill = (e: RowEvent) => e.toState === "unknown" && e.source === "reconcile" && (e.detail ?? "").startsWith("found in submitting")
  const killedRun = (at: number) => runAt(runs, at)?.killed === true
  if (cutByKill(left)) return killedRun(events[resend].at) ? "resend cut by SIGKILL" : "unexplained"
  if (left.toState === "unknown" && left.source === "response") return "resend answered ambiguously"
  if (left.toState === "validated") {
    const last = after.filter((e) => e.fromState === "submitting").at(-1)
    const claim = after.filter((e) => e.toState === "submitting").at(-1)
    if (last !== undefined && claim !== undefined && cutByKill(last) && killedRun(claim.at)) return "resend released unsent, then cut by SIGKILL"
    if (last?.toState === "unknown" && last.source === "response") return "resend released unsent, then answered ambiguously"
  }
  return "unexplained"
}

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
  const source = sourceStamp()
  const cli = options.tsx === true ? { entry: BIN, remove: () => {} } : await bundleCli()
  const scope = Effect.runSync(Scope.make())
  // Kill on commit: the sandbox calls back as each payout is committed, before its answer is written.
  let onPayout: (() => void) | undefined
  const sandbox = await Effect.runPromise(
    Scope.extend(
      launchSandbox({
        onPayoutCommitted: () => Effect.sync(() => onPayout?.()),
        key,
        secret,
        // Real time: the Date header agrees with our clock (rule 7), so a proven absence may be resent.
        timeScale: 1,
        payoutDelaySeconds: 1,
        webhookRetryMillis: 50,
        webhookMaxAttempts: 4,
        fund: { XAF: 200_000_000 },
        faults: options.faults ?? soakFaults(options.seed)
      }),
      scope
    )
  )
  const outputs: Array<string> = []
  const problems: Array<string> = []
  let alarmedAny = false
  let closeRelay = () => {}
  try {
    const listen = `127.0.0.1:${await freePort()}`
    // Pause rounds need to tell the paused runner's requests apart: every child goes through one relay.
    const relay = (options.pauseShare ?? 0) > 0 ? await countingRelay(sandbox.origin) : undefined
    if (relay !== undefined) closeRelay = relay.close
    const env = { ...process.env, PAYOUTS_BASE_URL: relay === undefined ? sandbox.baseUrl : `${relay.origin}/v1`, PAYOUTS_API_KEY: key, PAYOUTS_API_SECRET: secret, NO_COLOR: "1" }
    const LEASE_TTL_MS = 1_000
    const args = (listenAt = listen): ReadonlyArray<string> => [
      "run", file, "--state", state, "--concurrency", "8", "--poll-interval", "100ms", "--poll-max", "1s",
      "--request-timeout", "1500ms", "--lease-ttl", `${LEASE_TTL_MS}ms`,
      // Raised by the run to request timeout + lease time + twice the p99 listing lag.
      "--reconcile-grace", "2s",
      // Long enough for the evidence of a proven absence (grace, two syncs half a grace apart, witnesses).
      "--reconcile-deadline", reconcileDeadline(Date.now() - started),
      "--ledger-every", "500ms", "--progress-every", "1h",
      "--listen", listenAt,
      ...(options.rate === undefined ? [] : ["--rate", String(options.rate)])
    ]
    const maxDelay = options.maxKillDelayMs ?? 5_000
    /**
     * The rest of a pause round, the first runner SIGSTOPped: wait past its lease, run a second runner
     * on the same file and store (its own webhook port: the paused one still holds the fixed one) for
     * a seeded while, SIGCONT the first with the second still running and wait for it to end (exit 3
     * expected, nothing sent), then end the second with SIGKILL, as a kill round would, unless it ended
     * by itself (`finished` when it finished the batch).
     */
    const pauseRound = async (p: { attempt: number; child: Child; relay: Awaited<ReturnType<typeof countingRelay>>; killedAt: string }) => {
      const pausedAt = Date.now()
      const pausedFor = LEASE_TTL_MS + 1_000
      await sleep(pausedFor)
      const secondListen = `127.0.0.1:${await freePort()}`
      let second: Child | undefined
      let secondSpan: RunSpan | undefined
      let secondExit: { code: number | null; signal: NodeJS.Signals | null } | undefined
      // A second runner that still finds the lease held (exit 3) is retried, up to 3 runners, 1 s apart.
      for (let i = 1; i <= 3 && (i === 1 || secondExit?.code === 3); i++) {
        if (secondExit !== undefined) await sleep(1_000)
        const base = join(dir, `round-${p.attempt}-second-${i}`)
        outputs.push(`${base}.stdout.log`, `${base}.stderr.log`)
        second = spawnRun(cli.entry, args(secondListen), env, base)
        secondSpan = { name: `round-${p.attempt}-second-${i}`, start: Date.now(), end: Infinity, killed: false }
        runs.push(secondSpan)
        await second.ready
        const window = 2_000 + Math.floor(pauseRandom() * 6_000)
        secondExit = await Promise.race([second.exited, sleep(window).then(() => undefined)])
        if (secondExit !== undefined) {
          secondSpan.end = Date.now()
          log(`round ${p.attempt}: second runner ${i} exited by itself with ${secondExit.code ?? secondExit.signal} while the first was paused`)
        }
      }
      // Resume the first: from here on, any payout POST it writes is a send by a runner that lost its lease.
      p.relay.reset()
      p.relay.watch(p.child.proc.pid)
      const resumedAt = Date.now()
      p.child.proc.kill("SIGCONT")
      const bound = 20_000
      const firstExit = await Promise.race([p.child.exited, sleep(bound).then(() => undefined)])
      let firstEnd: string
      if (firstExit === undefined) {
        p.child.proc.kill("SIGKILL")
        await p.child.exited
        firstEnd = "killed"
        problems.push(`round ${p.attempt}: the runner paused ${p.killedAt} did not end within ${bound / 1000} s of its SIGCONT; SIGKILLed (seed ${options.seed})`)
      } else firstEnd = String(firstExit.code ?? firstExit.signal)
      const sent = p.relay.posts()
      p.relay.watch(undefined)
      sendsAfterResume += sent
      pauseExits[firstEnd] = (pauseExits[firstEnd] ?? 0) + 1
      if (sent > 0) problems.push(`round ${p.attempt}: the runner paused ${p.killedAt} for ${((resumedAt - pausedAt) / 1000).toFixed(1)} s (lease ${LEASE_TTL_MS} ms) sent ${sent} payout POST(s) after its SIGCONT (seed ${options.seed})`)
      const secondRunning = secondExit === undefined
      if (firstEnd !== "3" && secondRunning) problems.push(`round ${p.attempt}: the runner paused ${p.killedAt} ended with ${firstEnd} after its SIGCONT while a second runner held the lease (3 expected) (seed ${options.seed})`)
      log(`round ${p.attempt}: SIGSTOP ${p.killedAt}, second runner started ${pausedFor} ms later, SIGCONT after ${((resumedAt - pausedAt) / 1000).toFixed(1)} s; first ended with ${firstEnd} ${((Date.now() - resumedAt) / 1000).toFixed(1)} s after SIGCONT, sent ${sent} payout POSTs after it`)
      let finishedBatch = false
      if (second !== undefined && secondSpan !== undefined) {
        if (secondRunning) {
          const more = Math.floor(pauseRandom() * 3_000)
          const late = await Promise.race([second.exited, sleep(more).then(() => undefined)])
          if (late === undefined) {
            second.proc.kill("SIGKILL")
            await second.exited
            secondSpan.killed = true
            log(`round ${p.attempt}: second runner SIGKILLed ${more} ms after the first ended`)
          } else {
            log(`round ${p.attempt}: second runner exited by itself with ${late.code ?? late.signal}`)
            finishedBatch = late.code === 0 || late.code === 1 || late.code === 5
          }
        } else finishedBatch = secondExit?.code === 0 || secondExit?.code === 1 || secondExit?.code === 5
        secondSpan.end = Date.now()
      }
      return { finished: finishedBatch }
    }
    const runs: Array<RunSpan> = []
    let kills = 0
    let killsAfterCommit = 0
    let pauses = 0
    let sendsAfterResume = 0
    const pauseExits: Record<string, number> = {}
    // Pause rounds are drawn from their own stream: the kill plan of a seed stays what it was.
    const pauseRandom = prng(options.seed ^ 0x5a05e)
    const pauseShare = options.pauseShare ?? 0
    let attempt = 0
    let finished = false
    while (kills + pauses < options.rounds && attempt < options.rounds * 3) {
      if (attempt > 0 && options.restartAfterMs !== undefined) await sleep(options.restartAfterMs)
      attempt++
      const logBase = join(dir, `round-${attempt}`)
      outputs.push(`${logBase}.stdout.log`, `${logBase}.stderr.log`)
      const pause = pauseShare > 0 && pauseRandom() < pauseShare
      const child = spawnRun(cli.entry, args(), env, logBase)
      const span = { name: `round-${attempt}`, start: Date.now(), end: Infinity, killed: false }
      runs.push(span)
      const afterCommit = random() < 0.5 || options.commitKillsOnly === true
      const delay = 300 + Math.floor(random() * maxDelay)
      // Spread the commit kills over the batch: a round sends about rows / (2 x rounds) payouts before its kill.
      const nth = 1 + Math.floor(random() * Math.min(60, Math.max(1, options.rows / (2 * options.rounds))))
      let killedAt: string | undefined
      let stopped: () => void = () => {}
      const stop = new Promise<void>((ok) => (stopped = ok))
      const kill = (how: string) => {
        if (killedAt !== undefined || child.proc.exitCode !== null) return
        killedAt = how
        if (pause) {
          child.proc.kill("SIGSTOP")
          onPayout = undefined
          stopped()
        } else child.proc.kill("SIGKILL")
      }
      let seen = 0
      if (afterCommit) {
        // Synchronous with the commit: the answer has not been written to the socket yet.
        onPayout = () => {
          if (++seen >= nth) kill(`on commit of payout #${nth} of the round`)
        }
      }
      // A round waiting for a commit that never comes (nothing left to send) falls back to a timer.
      // Timers count from the child's first output, not its spawn: a kill while tsx is still loading
      // the sources would test nothing.
      const timeout = afterCommit ? delay + 15_000 : delay
      let timer: ReturnType<typeof setTimeout> | undefined
      void child.ready.then(() => {
        timer = setTimeout(() => kill(`${timeout} ms after it started`), timeout)
      })
      if (pause && relay !== undefined) {
        const paused = await Promise.race([stop.then(() => true), child.exited.then(() => false)])
        clearTimeout(timer)
        onPayout = undefined
        if (paused) {
          pauses++
          const ended = await pauseRound({ attempt, child, relay, killedAt: killedAt ?? "" })
          span.end = Date.now()
          if (ended.finished) {
            finished = true
            break
          }
          continue
        }
      }
      const exit = await child.exited
      span.end = Date.now()
      span.killed = exit.signal === "SIGKILL"
      clearTimeout(timer)
      onPayout = undefined
      if (exit.signal === "SIGKILL" && killedAt !== undefined) {
        kills++
        if (killedAt.startsWith("on commit")) killsAfterCommit++
        log(`round ${attempt}: SIGKILL ${killedAt} (${kills}/${options.rounds})`)
      } else {
        log(`round ${attempt}: exited by itself with ${exit.code ?? exit.signal}`)
        if (exit.code === 0 || exit.code === 1 || exit.code === 5) {
          finished = true
          break
        }
      }
    }
    // Run to completion: no more kills. 5 is an end too (alarms: running again alone settles nothing).
    let finalExit: number | null = null
    if (kills > 0 && options.restartAfterMs !== undefined) await sleep(options.restartAfterMs)
    for (let i = 0; i < 6 && (finalExit === null || (finalExit > 1 && finalExit !== 5)); i++) {
      const logBase = join(dir, `final-${i + 1}`)
      outputs.push(`${logBase}.stdout.log`, `${logBase}.stderr.log`)
      const span = { name: `final-${i + 1}`, start: Date.now(), end: Infinity, killed: false }
      runs.push(span)
      const exit = await spawnRun(cli.entry, args(), env, logBase).exited
      span.end = Date.now()
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

    // The tokens the runs gave the rows (DESIGN 7 mints them from the account and the row's id), as
    // the store holds them: every payout must carry one, each at most once, and no two rows share one.
    const tokenOf = await readRowTokens(state, batchId)
    const rowToken = (idx: number) => tokenOf.get(idx) ?? `(row ${idx} not in the store)`
    const expected = new Map(Array.from({ length: options.rows }, (_, idx) => [rowToken(idx), idx]))
    if (tokenOf.size !== options.rows) problems.push(`the store holds ${tokenOf.size} rows of the batch, the input ${options.rows}`)
    if (expected.size !== options.rows) problems.push(`${options.rows - expected.size} rows share a token with another row`)
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
    // Rows the final run left under alarm (exit 5): from the summary, each with its trail in the logs.
    const summaryFile = join(dir, "soak.summary.json")
    const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as {
      alarms?: ReadonlyArray<{ line: number; reason?: string; references?: ReadonlyArray<string> }>
      account_alarm?: string
      exit_code?: number
    }
    if (summary.account_alarm !== undefined) problems.push(`account alarm (the listing could not prove absence): ${summary.account_alarm}`)
    const logs = outputs.filter((f) => f.endsWith(".stderr.log") && existsSync(f)).map((f) => ({ run: basename(f, ".stderr.log"), text: readFileSync(f, "utf8") }))
    const alarms: Array<{ -readonly [K in keyof SoakAlarm]: SoakAlarm[K] }> = (summary.alarms ?? []).map((a) => {
      const token = rowToken(a.line - 2)
      const about = new RegExp(`\\bline ${a.line}:`)
      const trail = logs.flatMap(({ run, text }) => text.split("\n").filter((l) => about.test(l)).map((l) => `${run}: ${l}`))
      return { line: a.line, token, reason: a.reason ?? "", paid: byToken.get(token)?.length ?? 0, lastError: undefined, cause: "", history: [], trail }
    })
    const events = alarms.length === 0 ? [] : await readRowEvents(state, batchId, alarms.map((a) => a.line - 2)).catch((error: unknown) => {
      problems.push(`the state store's row events could not be read to explain the alarms: ${String(error)}`)
      return []
    })
    for (const alarm of alarms) {
      const mine = events.filter((e) => e.idx === alarm.line - 2)
      alarm.cause = alarmCause(alarm.reason, mine, runs)
      if (alarm.cause === "deadline") {
        // What the row was still waiting for when the deadline came, from the runs' own words.
        const waits = alarm.trail.map((t) => /outcome unknown, waiting: (.*?)(?: \(until [^)]*\))?; alarm at/.exec(t)?.[1]).filter((w) => w !== undefined)
        const last = waits.at(-1)
        if (last !== undefined) alarm.cause = `deadline, still waiting: ${last.replace(/\d+/g, "N").replace(/\(e\.g\. [^)]*\)/, "").trim()}`
      }
      alarm.history = mine.map((e) => {
        const run = runAt(runs, e.at)
        return `${new Date(e.at).toISOString().slice(11, 23)} ${e.fromState ?? ""}->${e.toState} (${e.source}${e.detail === null ? "" : `: ${e.detail.slice(0, 60)}`}) in ${run === undefined ? "?" : `${run.name}${run.killed ? " (SIGKILLed)" : ""}`}`
      })
    }
    const alarmedTokens = new Set(alarms.map((a) => a.token))
    alarmedAny = alarms.length > 0
    let lost = 0
    for (const [token, idx] of expected) {
      if (!byToken.has(token) && !alarmedTokens.has(token)) {
        lost++
        problems.push(`row ${idx} (line ${idx + 2}, token ${token}) was never paid and is not under alarm`)
      }
    }
    const ledgerFile = join(dir, "soak.ledger.csv")
    outputs.push(ledgerFile, summaryFile)
    // The state store too (with its WAL): nothing the runs wrote may hold the secret.
    for (const name of readdirSync(dir)) if (name.startsWith("state.db")) outputs.push(join(dir, name))
    const ledger = Papa.parse<Record<string, string>>(readFileSync(ledgerFile, "utf8"), { header: true, skipEmptyLines: true }).data
    for (const alarm of alarms) {
      const error = ledger.find((row) => Number(row.line) === alarm.line)?.error ?? ""
      alarm.lastError = /\(last error: (.*)\)$/.exec(error)?.[1] ?? (error.startsWith("ALARM") || error === "" ? undefined : error)
    }
    let mismatched = 0
    if (ledger.length !== options.rows) {
      mismatched += Math.abs(options.rows - ledger.length)
      problems.push(`the ledger has ${ledger.length} rows, the input ${options.rows}`)
    }
    for (const row of ledger) {
      const idx = Number(row.line) - 2
      const token = rowToken(idx)
      const paid = byToken.get(token) ?? []
      // An alarmed row waits for a person: its ledger line says ALARM, whatever the service holds (a
      // second payout is counted above as a duplicate).
      if (alarmedTokens.has(token)) {
        if (!row.error?.startsWith("ALARM") && row.status !== "unknown") {
          mismatched++
          problems.push(`ledger line ${row.line}: under alarm in the summary, but the ledger says ${row.status} ${row.reference || "(no reference)"} ${row.error ?? ""}`)
        }
        continue
      }
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
      pauses,
      sendsAfterResume,
      pauseExits,
      rows: options.rows,
      payouts: payouts.length,
      duplicates,
      lost,
      alarmed: alarms.length,
      alarms,
      alarmCauses: alarms.reduce<Record<string, number>>((m, a) => ({ ...m, [a.cause]: (m[a.cause] ?? 0) + 1 }), {}),
      mismatched,
      invariantOk: invariants.ok,
      finalExit,
      pagesLie: pagesLieOf(options.seed),
      faultCounters,
      durationMs: Date.now() - started,
      source,
      dir,
      outputs,
      secret,
      key,
      problems
    }
  } finally {
    closeRelay()
    cli.remove()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (options.keep !== true && problems.length === 0 && !alarmedAny) rmSync(dir, { recursive: true, force: true })
  }
}

export const formatResult = (r: SoakResult) =>
  [
    `duplicates=${r.duplicates} lost=${r.lost} alarmed=${r.alarmed} mismatched=${r.mismatched} invariant=${r.invariantOk ? "ok" : "VIOLATED"}`,
    ...(r.alarmed === 0 ? [] : [`alarmed by cause: ${Object.entries(r.alarmCauses).map(([k, v]) => `${k}=${v}`).join(", ")}`]),
    `seed=${r.seed} rounds=${r.rounds} kills=${r.kills} kills_on_commit=${r.killsAfterCommit} pauses=${r.pauses}${r.pauses === 0 ? "" : ` sends_after_resume=${r.sendsAfterResume} paused_exits=${Object.entries(r.pauseExits).map(([k, v]) => `${k}:${v}`).join(",")}`} rows=${r.rows} payouts=${r.payouts} final_exit=${r.finalExit} pages_lie=${r.pagesLie} duration=${(r.durationMs / 1000).toFixed(1)}s src=${r.source}`,
    `faults fired: ${Object.entries(r.faultCounters).filter(([k]) => k !== "requests").map(([k, v]) => `${k}=${v}`).join(" ")} (requests=${r.faultCounters.requests ?? 0})`
  ].join("\n")

/** The alarmed rows: line, reason, what the service holds, and the last few things the runs said about the row. */
export const formatAlarms = (r: SoakResult, trailLines = 4) =>
  r.alarms
    .map((a) =>
      [
        `ALARMED line ${a.line} [${a.token}] ${a.cause} (service holds ${a.paid} payout${a.paid === 1 ? "" : "s"} with its token): ${a.reason.slice(0, 160)}`,
        ...(a.lastError === undefined ? [] : [`    last error: ${a.lastError}`]),
        ...a.history.slice(-trailLines).map((t) => `    ${t}`)
      ].join("\n")
    )
    .join("\n")

/** Fails only on what breaks a promise: a duplicate, a silently unpaid row, a ledger that lies, money. */
export const soakOk = (r: SoakResult) => r.duplicates === 0 && r.lost === 0 && r.mismatched === 0 && r.invariantOk && r.sendsAfterResume === 0

const flag = (argv: ReadonlyArray<string>, name: string) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
// `--workers N`: the multi-worker soak on PostgreSQL (issue 14), given this module's faults and PRNG.
if (isMain && process.argv.includes("--workers")) {
  void import("./soak/workers.ts")
    .then((m) => m.main(process.argv.slice(2), { soakFaults, prng }))
    .then(
      (code) => process.exit(code),
      (error: unknown) => {
        process.stderr.write(`soak failed: ${String(error)}\n`)
        process.exit(1)
      }
    )
} else if (isMain) {
  const argv = process.argv.slice(2)
  const seed = Number(flag(argv, "seed") ?? process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
  const options: SoakOptions = {
    rounds: Number(flag(argv, "rounds") ?? 20),
    rows: Number(flag(argv, "rows") ?? 300),
    seed,
    keep: argv.includes("--keep"),
    tsx: argv.includes("--tsx"),
    pauseShare: Number(flag(argv, "pause-rounds") ?? 1 / 3),
    ...(flag(argv, "rate") === undefined ? {} : { rate: Number(flag(argv, "rate")) })
  }
  process.stderr.write(`soak: seed=${seed} rounds=${options.rounds} rows=${options.rows} (replay: npx tsx scripts/soak.ts --seed ${seed} --rounds ${options.rounds} --rows ${options.rows})\n`)
  runSoak(options).then(
    (result) => {
      for (const p of result.problems.slice(0, 30)) process.stderr.write(`PROBLEM ${p}\n`)
      if (result.problems.length > 0 || result.alarmed > 0 || argv.includes("--keep")) process.stderr.write(`working folder kept: ${result.dir}\n`)
      if (result.alarmed > 0) process.stdout.write(`${formatAlarms(result)}\n`)
      process.stdout.write(`${formatResult(result)}\n`)
      const ok = soakOk(result) && result.kills + result.pauses >= Math.min(result.rounds, 1) && !result.problems.some((p) => /after its SIGCONT/.test(p))
      // undici keeps idle sockets to the stopped sandbox: exit explicitly.
      process.exit(ok ? 0 : 1)
    },
    (error: unknown) => {
      process.stderr.write(`soak failed (seed=${seed}): ${String(error)}\n`)
      process.exit(1)
    }
  )
}
