/**
 * The bound of validate's speed: libphonenumber alone, through its public API on one thread, over
 * every number of the file (parse, validity, type: what a row's phone check asks of it). The bound is
 * its default build (`libphonenumber-js/max`), as issue 32 set it; payouts loads the same library's
 * ES2015 build (`libphonenumber-js/max/es6`, domain/Phone.ts), measured beside it for the reader.
 */
import { createReadStream } from "node:fs"
import type { CountryCode } from "libphonenumber-js/max"
import { parsePhoneNumberFromString as parseDefault } from "libphonenumber-js/max"
import { parsePhoneNumberFromString as parseEs6 } from "libphonenumber-js/max/es6"
import Papa from "papaparse"

const BUILDS = { default: parseDefault, es6: parseEs6 } as const
type Build = keyof typeof BUILDS

/** Each build over the same numbers: numbers per second, per wall and per CPU second. */
const timeBuild = (numbers: ReadonlyArray<readonly [string, CountryCode]>, build: Build) => {
  const parsePhoneNumberFromString = BUILDS[build]
  const start = performance.now()
  const cpu = process.cpuUsage()
  let valid = 0
  for (const [phone, country] of numbers) {
    const parsed = parsePhoneNumberFromString(phone, country)
    if (parsed !== undefined && parsed.isValid() && parsed.getType() !== undefined) valid++
  }
  const seconds = (performance.now() - start) / 1000
  const used = process.cpuUsage(cpu)
  // Per CPU-second too: what other work on the machine changes least.
  const perCpuSecond = numbers.length / Math.max(1e-6, (used.user + used.system) / 1e6)
  return { numbers: numbers.length, valid, seconds, perSecond: numbers.length / seconds, perCpuSecond }
}

/**
 * Numbers per second over the first `limit` numbers of the file (read once, outside the timing), by
 * each build: a rate, so a sample of the file gives it, and the bench measures it between the runs it bounds.
 */
export const barePhones = async (file: string, limit = 200_000) => {
  const numbers: Array<[string, CountryCode]> = []
  await new Promise<void>((resolve, reject) =>
    Papa.parse(createReadStream(file, { highWaterMark: 64 * 1024 }), {
      step: (r: Papa.ParseStepResult<Array<string>>, parser) => {
        const [, , , operator, phone] = r.data
        if (operator !== "operator" && phone !== undefined) numbers.push([phone, operator.slice(-2).toUpperCase() as CountryCode])
        if (numbers.length >= limit) parser.abort()
      },
      complete: () => resolve(),
      error: reject
    })
  )
  return { default: timeBuild(numbers, "default"), es6: timeBuild(numbers, "es6") }
}
