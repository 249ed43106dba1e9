/**
 * The Workers page (DESIGN 12 and 13): the `watch` workers sharing this account's store, as
 * `payouts workers` lists them (jobs/Workers.ts), with the batches whose lease each one's process
 * holds, and every lease held, by whom and until when.
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { heldBy, workers } from "../../jobs/Workers.ts"
import { userFormat } from "../../output/Format.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { ConsoleAccount, escapeHtml, page } from "../Contract.ts"

const e = escapeHtml

const ago = (ms: number) => (ms < 1_000 ? "now" : ms < 120_000 ? `${Math.round(ms / 1_000)} s ago` : `${Math.round(ms / 60_000)} min ago`)

const workersPage = Effect.gen(function* () {
  const { accountId } = yield* ConsoleAccount
  const f = yield* userFormat
  const found = yield* workers(accountId)
  const leased = (yield* (yield* Batches).listBatches(accountId)).filter((b) => b.leaseOwner !== null)
  const link = (b: (typeof leased)[number]) => `<a href="/batches/${e(b.batchId)}">${e(b.fileName)}</a>`
  const workerRows = found
    .map((w) => {
      const held = leased.filter((b) => heldBy(w.owner, b.leaseOwner))
      return `<tr><th scope="row">${e(w.owner)}</th><td>${w.live ? "live" : "lost"}</td><td>${e(ago(w.silentMs))}</td><td>${e(f.time(w.startedAt))}</td>
<td>${held.length === 0 ? "-" : held.map(link).join(", ")}</td><td>${w.running.length === 0 ? "-" : e(w.running.join(", "))}</td></tr>`
    })
    .join("")
  const workersTable = found.length === 0
    ? "<p>No worker has beaten in this account's state store (start one with: payouts watch DIR).</p>"
    : `<div class="scroll" tabindex="0" role="region" aria-label="Workers table"><table><caption>Workers, live first</caption><thead><tr><th scope="col">Worker</th><th scope="col">State</th><th scope="col">Last heartbeat</th><th scope="col">Started</th><th scope="col">Batches leased</th><th scope="col">Files</th></tr></thead><tbody>${workerRows}</tbody></table></div>`
  const leaseRows = leased
    .map((b) => `<tr><th scope="row">${link(b)}</th><td>${e(b.state)}</td><td>${e(b.leaseOwner ?? "-")}</td><td>${b.leaseExpiresAt === null ? "-" : e(f.time(b.leaseExpiresAt))}</td></tr>`)
    .join("")
  const leasesTable = leased.length === 0
    ? "<p>No batch is leased: nothing is running.</p>"
    : `<div class="scroll" tabindex="0" role="region" aria-label="Leases table"><table><caption>Batches leased</caption><thead><tr><th scope="col">Batch</th><th scope="col">State</th><th scope="col">Held by</th><th scope="col">Lease ends</th></tr></thead><tbody>${leaseRows}</tbody></table></div>`
  const lost = found.filter((w) => !w.live).length
  const note = lost === 0 ? "" : `<p role="status">${lost} worker(s) lost: no heartbeat within their time to live; their batches pass to a live worker once their leases expire.</p>`
  return yield* page("Workers", `${note}<section aria-labelledby="w"><h2 id="w">Workers</h2>${workersTable}</section><section aria-labelledby="l"><h2 id="l">Leases</h2>${leasesTable}</section>`)
})

export const workersRoutes = HttpRouter.empty.pipe(HttpRouter.get("/workers", workersPage))
