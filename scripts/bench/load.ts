/** Bounds measured without the orchestrator: a plain HTTP loop, bare papaparse, bare libphonenumber. */
import { createReadStream } from "node:fs"
import { Agent, request } from "node:http"
import type { CountryCode } from "libphonenumber-js/max"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import Papa from "papaparse"
import type { SandboxProcess } from "./sandbox.ts"

const payoutBody = (i: number, callbackUrl: string) =>
  JSON.stringify({
    amount: 1000,
    currency: "XAF",
    operator: "carrier1_cm",
    phoneNumber: `+23767${String(i % 10_000_000).padStart(7, "0")}`,
    return_url: "http://localhost/r",
    cancel_url: "http://localhost/c",
    callback_url: callbackUrl,
    description: `[load${i}] plain loop`,
    customer: { name: "Load Loop", phone: `+23767${String(i % 10_000_000).padStart(7, "0")}`, email: "load@example.com" }
  })

/** POSTs payouts with `concurrency` keep-alive connections for `seconds`: requests answered per second. */
export const httpLoop = async (sandbox: SandboxProcess, concurrency: number, seconds: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const url = new URL(`${sandbox.baseUrl}/payments/payout/mobile-money`)
  const headers = {
    "x-api-key": sandbox.key,
    "x-api-secret": sandbox.secret,
    accept: "application/json",
    "content-type": "application/json"
  }
  const one = (i: number) =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "POST", agent, headers }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.end(payoutBody(i, sandbox.sinkUrl))
    })
  const start = performance.now()
  const until = start + seconds * 1000
  let next = 0
  let ok = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        if ((await one(next++)) === 200) ok++
      }
    })
  )
  const elapsed = (performance.now() - start) / 1000
  agent.destroy()
  return { requests: next, ok, seconds: elapsed, perSecond: next / elapsed }
}

/** papaparse alone over the file (streamed, one row at a time): rows per second. */
export const bareParse = (file: string) =>
  new Promise<{ rows: number; seconds: number; perSecond: number }>((resolve, reject) => {
    const start = performance.now()
    let rows = 0
    Papa.parse(createReadStream(file, { highWaterMark: 64 * 1024 }), {
      step: () => void rows++,
      complete: () => {
        const seconds = (performance.now() - start) / 1000
        resolve({ rows: rows - 1, seconds, perSecond: (rows - 1) / seconds })
      },
      error: reject
    })
  })

/** libphonenumber alone (parse, validity, type) over every number of the file: numbers per second. */
export const barePhones = async (file: string) => {
  const numbers: Array<[string, CountryCode]> = []
  await new Promise<void>((resolve, reject) =>
    Papa.parse(createReadStream(file, { highWaterMark: 64 * 1024 }), {
      step: (r: Papa.ParseStepResult<Array<string>>) => {
        const [, , , operator, phone] = r.data
        if (operator !== "operator" && phone !== undefined) numbers.push([phone, operator.slice(-2).toUpperCase() as CountryCode])
      },
      complete: () => resolve(),
      error: reject
    })
  )
  const start = performance.now()
  let valid = 0
  for (const [phone, country] of numbers) {
    const parsed = parsePhoneNumberFromString(phone, country)
    if (parsed !== undefined && parsed.isValid() && parsed.getType() !== undefined) valid++
  }
  const seconds = (performance.now() - start) / 1000
  return { numbers: numbers.length, valid, seconds, perSecond: numbers.length / seconds }
}
