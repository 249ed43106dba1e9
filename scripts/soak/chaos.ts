/**
 * What happens to the workers while they pay, at seeded random intervals (2-8 s): a worker SIGKILLed
 * and a replacement started; a worker SIGSTOPped past its lease (TTL + 1-3 s) then SIGCONTed; every
 * worker's database connections cut with pg_terminate_backend. A worker holding a batch's lease is
 * the usual victim (3 times in 4 when there is one): the others are mostly idle, waiting for the
 * currency lock. Each step draws the same count of numbers, so a seed replays the same schedule.
 */
import type { SoakDb } from "./db.ts"
import { LEASE_TTL_MS, type Pool, type Worker } from "./pool.ts"

export interface ChaosCounts {
  kills: number
  stops: number
  cuts: number
  /** Connections pg_terminate_backend ended, over all cuts. */
  cutConnections: number
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))

export const runChaos = async (p: {
  readonly pool: Pool
  readonly db: SoakDb
  readonly random: () => number
  readonly finished: () => boolean
  readonly log: (line: string) => void
  /** When the soak started: events are logged in seconds from then. */
  readonly since: number
}): Promise<ChaosCounts> => {
  const counts: ChaosCounts = { kills: 0, stops: 0, cuts: 0, cutConnections: 0 }
  const at = () => `${((Date.now() - p.since) / 1000).toFixed(1)}s`
  while (!p.finished()) {
    const gap = 2_000 + p.random() * 6_000
    const action = p.random()
    const preferHolder = p.random() < 0.75
    const which = p.random()
    const pausedFor = LEASE_TTL_MS + 1_000 + Math.floor(p.random() * 2_000)
    // Waits in short steps so the end of the soak is not held up by a long gap.
    const until = Date.now() + gap
    while (Date.now() < until && !p.finished()) await sleep(Math.min(250, until - Date.now()))
    if (p.finished()) break
    const live = p.pool.live().filter((w) => !w.stopped)
    if (live.length === 0) continue
    const holders = (await p.db.leaseOwners()).map(p.pool.byOwner).filter((w): w is Worker => w !== undefined && !w.stopped)
    const among = preferHolder && holders.length > 0 ? holders : live
    const victim = among[Math.floor(which * among.length)]
    const role = holders.includes(victim) ? "holding a lease" : "idle"
    if (action < 0.4) {
      await p.pool.kill(victim)
      counts.kills++
      const fresh = p.pool.start()
      p.log(`${at()} SIGKILL ${victim.name} (pid ${victim.proc.pid}, ${role}); started ${fresh.name}`)
    } else if (action < 0.7) {
      p.pool.stop(victim)
      counts.stops++
      p.log(`${at()} SIGSTOP ${victim.name} (pid ${victim.proc.pid}, ${role}) for ${pausedFor} ms`)
      await sleep(pausedFor)
      p.pool.resume(victim)
      p.log(`${at()} SIGCONT ${victim.name}`)
    } else {
      const cut = await p.db.cutWorkers()
      counts.cuts++
      counts.cutConnections += cut
      p.log(`${at()} pg_terminate_backend: ${cut} connections of the workers cut`)
    }
  }
  return counts
}
