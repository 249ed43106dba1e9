/**
 * The multi-worker soak (issue 14): N `payouts watch DIR` workers (the real binary, separate processes)
 * on one jobs folder and one fresh schema of a PostgreSQL store, against a sandbox in a process of its
 * own with the soak's faults (scripts/soak.ts `soakFaults`) and a rate limit of `--rate`. Batches are
 * dropped half at once, half later; meanwhile workers are SIGKILLed (and replaced), SIGSTOPped past
 * their lease then resumed, and their database connections cut (scripts/soak/chaos.ts)
 * (for the first 60% of `--minutes`; then calm) and at the end (every batch out of the jobs folder's
 * queue, or `--minutes`) the checks of scripts/soak/verdict.ts.
 *
 *   npm run soak -- --workers 4 --state postgres://postgres@127.0.0.1:5432/test [--batches 12] [--rows 200]
 *     [--seed S] [--rate 20] [--minutes M] [--keep]
 *
 * Rows no rule can settle automatically (DESIGN 7: a resend unknown again, the stream's last ambiguous
 * POST with no later witness) are settled in the calm end by the soak's person (scripts/soak/person.ts)
 * as the README tells an operator to: batches in attention/, and rows left unknown for 90 s with no
 * traffic (the workers stopped meanwhile); their decisions are counted (`person_decisions`).
 * Exit 0 only if every batch is in done/, with 0 duplicates, 0 lost rows, every ledger status equal to
 * the sandbox's, and the sandbox's invariants hold. The request rate is reported, not judged.
 * Handed over from scripts/soak.ts (which passes its `soakFaults` and `prng`, so this module does not
 * import it back).
 */
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runChaos } from "./chaos.ts"
import { openSoakDb, shownUrl } from "./db.ts"
import { dropBatch, planBatches } from "./drops.ts"
import { FINAL_ROW_STATES } from "../../src/store/RowState.ts"
import { settleAttention, settleStuck } from "./person.ts"
import { makePool } from "./pool.ts"
import { spawnSoakSandbox } from "./sandbox.ts"
import { judge, placeOf } from "./verdict.ts"

export interface FromSoak {
  readonly soakFaults: (seed: number) => string
  readonly prng: (seed: number) => () => number
}

const flag = (argv: ReadonlyArray<string>, name: string) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

/** The commit the workers' sources are at, `+dirty` when src/ differs from it (the workers run the tree). */
const sourceStamp = (): string => {
  const git = (...args: ReadonlyArray<string>) => spawnSync("git", args, { encoding: "utf8" })
  const head = git("rev-parse", "--short", "HEAD")
  if (head.status !== 0) return "unknown"
  return `${head.stdout.trim()}${git("status", "--porcelain", "--", "src").stdout.trim() === "" ? "" : "+dirty"}`
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))
const log = (line: string) => process.stderr.write(`${line}\n`)

export const main = async (argv: ReadonlyArray<string>, from: FromSoak): Promise<number> => {
  const count = Number(flag(argv, "workers"))
  const state = flag(argv, "state") ?? process.env.PAYOUTS_STATE ?? ""
  const batchCount = Number(flag(argv, "batches") ?? 12)
  const rows = Number(flag(argv, "rows") ?? 200)
  const seed = Number(flag(argv, "seed") ?? process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
  const rate = Number(flag(argv, "rate") ?? 20)
  const minutes = Number(flag(argv, "minutes") ?? Math.max(20, Math.ceil((batchCount * rows) / 60)))
  const keep = argv.includes("--keep")
  if (!(count >= 1) || !/^postgres(ql)?:\/\//.test(state) || !(batchCount >= 1) || !(rows >= 1) || !(rate > 0) || !Number.isFinite(seed)) {
    log("usage: npm run soak -- --workers N --state postgres://USER@HOST:PORT/DB [--batches 12] [--rows 200] [--seed S] [--rate 20] [--minutes M] [--keep]")
    return 2
  }
  const replay = `npm run soak -- --workers ${count} --state ${shownUrl(state)} --batches ${batchCount} --rows ${rows} --seed ${seed} --rate ${rate}`
  log(`soak (workers): seed=${seed} workers=${count} batches=${batchCount} rows=${rows} rate=${rate} (replay: ${replay} --keep)`)
  const started = Date.now()
  const source = sourceStamp()
  const random = from.prng(seed)
  const batches = planBatches(batchCount, rows, random)
  const chaosRandom = from.prng(seed ^ 0x5eed)
  const work = mkdtempSync(join(tmpdir(), "payouts-soak-workers-"))
  const dir = join(work, "jobs")
  const logs = join(work, "logs")
  mkdirSync(dir)
  mkdirSync(logs)
  const sandbox = await spawnSoakSandbox({
    key: `soak-key-${randomBytes(6).toString("hex")}`,
    secret: `soak-secret-${randomBytes(12).toString("hex")}`,
    // Real time: the Date header agrees with our clock (DESIGN 7 rule 7), so a proven absence may be resent.
    timeScale: 1,
    payoutDelaySeconds: 1,
    webhookRetryMillis: 50,
    webhookMaxAttempts: 4,
    fund: { XAF: 50_000 * batchCount * rows },
    faults: `${from.soakFaults(seed)},rate=${rate}`
  })
  const db = await openSoakDb(state, seed).catch(async (error: unknown) => {
    await sandbox.stop()
    throw error
  })
  log(`working folder ${work}; store ${shownUrl(db.storeUrl)}`)
  const pool = makePool({ dir, logs, baseUrl: sandbox.baseUrl, key: sandbox.key, secret: sandbox.secret, storeUrl: db.storeUrl, rate })
  let ok = false
  try {
    for (let i = 0; i < count; i++) pool.start()
    const deadline = started + minutes * 60_000
    const pending = [...batches].sort((a, b) => a.at - b.at)
    // Finished when every batch is done or rejected, or in attention/ with nothing the person can do.
    const personLeft = new Map<string, string>()
    const settled = () =>
      batches.every((b) => {
        const place = placeOf(dir, b.name)
        return place === "done" || place === "rejected" || (place === "attention" && personLeft.has(b.name))
      })
    const person = { decisions: 0, nextAt: 0, stops: 0 }
    // Rows not final, all unknown, unchanged for `ms`: the stream is over and only a person can go on.
    const STUCK_MS = 90_000
    let stuckSince = { key: "", at: Date.now() }
    const stuckFor = async (ms: number) => {
      const open = (await db.rows()).filter((r) => !(FINAL_ROW_STATES as ReadonlyArray<string>).includes(r.state))
      const key = open.map((r) => `${r.token}:${r.state}`).sort().join(",")
      if (key !== stuckSince.key) stuckSince = { key, at: Date.now() }
      return open.length > 0 && open.every((r) => r.state === "unknown") && Date.now() - stuckSince.at >= ms
    }
    let finished = false
    // The last 40% of the time is calm, as the single-worker soak's final runs are: under a takeover
    // every few seconds, rows in doubt never get the two listing syncs half a grace apart (up to a
    // minute) that settle them, so without a calm end an unsettled row could not be told from a lost one.
    const calmAt = started + minutes * 60_000 * 0.6
    let calm = false
    const chaos = runChaos({ pool, db, random: chaosRandom, finished: () => finished || calm, log, since: started })
    while (!finished) {
      const now = Date.now() - started
      while (pending.length > 0 && pending[0].at <= now) {
        const batch = pending.shift()!
        dropBatch(dir, batch)
        log(`${(now / 1000).toFixed(1)}s dropped ${batch.name} (${batch.ids.length} rows)`)
      }
      if (!calm && Date.now() > calmAt) {
        calm = true
        log(`${(now / 1000).toFixed(1)}s chaos over: the workers finish in calm`)
      }
      // The person acts in the calm only (as the soak's checks do), one pass every few seconds.
      if (calm && Date.now() >= person.nextAt) {
        const pass = await settleAttention({ dir, env: pool.env, payouts: sandbox.payouts, log })
        person.decisions += pass.decisions
        person.nextAt = Date.now() + 3_000
        personLeft.clear()
        for (const why of pass.left) {
          personLeft.set(why.split(/[: ]/)[0], why)
          log(`person left: ${why}`)
        }
      }
      if (calm && pending.length === 0 && person.stops < 3 && (await stuckFor(STUCK_MS))) {
        // The rows left have stayed unknown with nothing else going on: what a person would look at.
        log(`${((Date.now() - started) / 1000).toFixed(1)}s rows unknown for ${STUCK_MS / 1000} s with no traffic left: the workers stop and a person looks`)
        await pool.shutdown(10_000)
        const rows = await db.rows()
        const stuck = batches.flatMap((b) => {
          const ids = new Set(b.ids)
          const batchId = rows.find((r) => r.rowId !== null && ids.has(r.rowId))?.batchId
          return batchId !== undefined && placeOf(dir, b.name) === "processing" && rows.some((r) => r.batchId === batchId && r.state === "unknown") ? [{ name: b.name, batchId }] : []
        })
        const pass = await settleStuck({ dir, env: pool.env, payouts: sandbox.payouts, log }, stuck)
        person.decisions += pass.decisions
        person.stops++
        for (const why of pass.left) log(`person left: ${why}`)
        for (let i = 0; i < count; i++) pool.start()
        stuckSince = { key: "", at: Date.now() }
      }
      if (pending.length === 0 && settled()) finished = true
      else if (Date.now() > deadline) {
        log(`timed out after ${minutes} min`)
        finished = true
      } else await sleep(250)
    }
    const counts = await chaos
    await pool.shutdown(10_000)
    // Webhooks still being retried and the last transitions settle; then the sandbox is read.
    await sleep(500)
    const verdict = judge({
      dir,
      batches,
      payouts: await sandbox.payouts(),
      storeRows: await db.rows(),
      invariants: await sandbox.invariants(),
      requestTimes: await sandbox.requestTimes(),
      rate
    })
    const limited = (await sandbox.counters()).rate_limited ?? 0
    const exits = pool.all().reduce<Record<string, number>>((m, w) => {
      const how = String(w.proc.exitCode ?? w.proc.signalCode)
      return { ...m, [how]: (m[how] ?? 0) + 1 }
    }, {})
    const unexpected = pool.all().filter((w) => w.proc.exitCode !== null && w.proc.exitCode !== 0 && w.proc.exitCode !== 130 && w.proc.exitCode !== 143)
    for (const p of verdict.problems.slice(0, 40)) log(`PROBLEM ${p}`)
    if (verdict.problems.length > 40) log(`... and ${verdict.problems.length - 40} more`)
    for (const b of verdict.bursts.slice(0, 20)) log(`RATE ${b.count} requests in the 1 s from ${((b.at - started) / 1000).toFixed(1)}s`)
    for (const w of unexpected) log(`NOTE ${w.name} exited ${w.proc.exitCode} by itself (log: ${w.log})`)
    ok = verdict.duplicates === 0 && verdict.lost === 0 && verdict.mismatched === 0 && verdict.invariantsOk && (verdict.places.done ?? 0) === batchCount
    const where = Object.entries(verdict.places).map(([k, v]) => `${k}=${v}`).join(",")
    process.stdout.write(
      `${[
        `workers=${count}`,
        `batches_done=${verdict.places.done ?? 0}/${batchCount}${where === `done=${batchCount}` ? "" : ` (${where})`}`,
        `rows=${verdict.rows}`,
        `payouts=${verdict.payouts}`,
        `duplicates=${verdict.duplicates}`,
        `lost=${verdict.lost}`,
        `statuses=${verdict.mismatched === 0 ? "match" : `${verdict.mismatched}_differ`}`,
        `invariants=${verdict.invariantsOk ? "ok" : "VIOLATED"}`,
        `max_requests_1s=${verdict.maxPerSecond}/${rate}${verdict.maxPerSecond <= rate ? "" : "(ABOVE)"}`,
        `max_requests_5s_avg=${verdict.maxPerSecondOver5s.toFixed(1)}/${rate}${verdict.maxPerSecondOver5s <= rate ? "" : "(ABOVE)"}`,
        `requests=${verdict.requests}`,
        `429s=${limited}`,
        `kills=${counts.kills}`,
        `stops=${counts.stops}`,
        `cuts=${counts.cuts}(${counts.cutConnections}_conns)`,
        `person_decisions=${person.decisions}`,
        `worker_exits=${Object.entries(exits).map(([k, v]) => `${k}:${v}`).join(",")}`,
        `seed=${seed}`,
        `duration=${((Date.now() - started) / 1000).toFixed(0)}s`,
        `src=${source}`,
        ok ? "PASS" : "FAIL"
      ].join(" ")}\n`
    )
    if (!ok || keep) log(`working folder kept: ${work} (worker logs in logs/; store schema ${db.schema} kept)`)
    return ok ? 0 : 1
  } finally {
    await pool.shutdown(5_000)
    await sandbox.stop()
    if (ok && !keep) {
      await db.dropSchema().catch(() => undefined)
      rmSync(work, { recursive: true, force: true })
    }
    await db.close()
  }
}
