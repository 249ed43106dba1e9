/**
 * The latency-bound figure's yardstick: what the service itself allows a client that keeps the
 * breaker's probe window (DESIGN 7). A bare loop (fetch, no store, no checks) makes only the calls a
 * tracked payout needs, as `payouts run` makes them: `probe` POSTs, then a wait for the first final
 * status (its webhook answered 200, then one status look-up), then `concurrency` POSTs in flight at
 * once; each webhook is answered and looked up. Why a yardstick and not concurrency / latency: each
 * request costs the sandbox CPU, and with one fixed latency for every call the slots arrive and leave
 * together, so a request waits for those served before it (about 105 ms a round trip for 100 ms set,
 * at 32 in flight, even for this client); and the window's wait is the service's time to a first
 * final status (its payout delay), however fast the client.
 */
import { once } from "node:events"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { DEFAULT_SAFEGUARDS } from "../../src/run/SafeguardSettings.ts"
import type { Build } from "./measure.ts"
import { spawnSandbox, type SandboxOptions, type SandboxProcess } from "./sandbox.ts"

export interface BareRun {
  /** POSTs answered per second, from the first sent to the last answered. */
  readonly perSecond: number
  /** The probe window's wait: from the first POST sent to the first final status read. */
  readonly waitSeconds: number
  /** POSTs answered per second once the window opened. */
  readonly perSecondAfterWindow: number
  /** Mean round trip of a POST, ms. */
  readonly meanMs: number
  /**
   * This process's CPU per payout (POST, webhook received, status look-up), ms: a yardstick for the
   * run's CPU per payout on the same host (the sandbox is another process; nothing else runs here then).
   */
  readonly cpuMsPerPayout: number
}

const FINAL = new Set(["completed", "failed"])

export const bareClient = async (sandbox: SandboxProcess, n: number, concurrency: number, probe: number): Promise<BareRun> => {
  const headers = { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json" }
  const lookups = new Set<Promise<unknown>>()
  let opened: () => void = () => undefined
  const windowOpen = new Promise<void>((resolve) => (opened = resolve))
  const final = (text: string) => {
    const status = (JSON.parse(text) as { data?: { status?: string } }).data?.status
    if (status !== undefined && FINAL.has(status)) opened()
  }
  const receiver = createServer((request, response) => {
    const parts: Array<Buffer> = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.on("end", () => {
      response.writeHead(200).end()
      const reference = (JSON.parse(Buffer.concat(parts).toString("utf8")) as { data?: { reference?: string } }).data?.reference
      if (reference === undefined) return
      const lookup = fetch(`${sandbox.baseUrl}/payment/status/${encodeURIComponent(reference)}`, { headers }).then((r) => r.text()).then(final, () => undefined)
      lookups.add(lookup)
      void lookup.finally(() => lookups.delete(lookup))
    })
  })
  receiver.listen(0, "127.0.0.1")
  await once(receiver, "listening")
  const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`
  let next = 0
  let total = 0
  const post = async (i: number) => {
    // Clear of the sandbox's test numbers (…0000001 to …0000004).
    const phone = `+23767${2_000_000 + i}`
    const body = JSON.stringify({
      amount: 500 + (i % 20_000), currency: "XAF", operator: "carrier1_cm", phoneNumber: phone,
      return_url: "https://example.com/return", cancel_url: "https://example.com/cancel", callback_url: callback,
      description: `bare ${i}`, customer: { name: "Seller Example", phone, email: `seller${i}@example.com` }
    })
    const start = performance.now()
    const response = await fetch(`${sandbox.baseUrl}/payments/payout/mobile-money`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body })
    await response.text()
    if (response.status >= 300) throw new Error(`bare client: POST answered ${response.status}`)
    total += performance.now() - start
  }
  const slots = (count: number, until: number) =>
    Promise.all(Array.from({ length: count }, async () => {
      for (let i = next++; i < until; i = next++) await post(i)
    }))
  const cpu = process.cpuUsage()
  const from = performance.now()
  await slots(probe, probe)
  await windowOpen
  const openAt = performance.now()
  await slots(concurrency, n)
  const to = performance.now()
  await Promise.all([...lookups])
  const used = process.cpuUsage(cpu)
  receiver.close()
  return {
    perSecond: n / ((to - from) / 1000), waitSeconds: (openAt - from) / 1000, perSecondAfterWindow: (n - probe) / ((to - openAt) / 1000), meanMs: total / n,
    cpuMsPerPayout: (used.user + used.system) / 1000 / n
  }
}

/** One bare run against a fresh sandbox of `build`, keeping the default probe window (--breaker-failures). */
export const bareRun = async (build: Build, service: SandboxOptions, n: number, concurrency: number): Promise<BareRun> => {
  const sandbox = await spawnSandbox(build, service)
  try {
    return await bareClient(sandbox, n, concurrency, DEFAULT_SAFEGUARDS.breakerFailures)
  } finally {
    await sandbox.stop()
  }
}
