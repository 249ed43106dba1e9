/** Synthetic payout files for the bench: distinct ids, realistic numbers of five countries, mixed forms. */
import { createWriteStream } from "node:fs"
import { once } from "node:events"

interface Market {
  readonly operator: string
  readonly currency: string
  /** National prefix of a mobile range and the digits that follow it. */
  readonly e164: (n: number) => string
  readonly national: (n: number) => string
}

/** `width` digits, never starting with 0: clear of the sandbox's test numbers (…0000001 to …0000004). */
const pad = (n: number, width: number) => String(10 ** (width - 1) + (n % (9 * 10 ** (width - 1))))

// Mobile ranges of each country (checked valid by libphonenumber-js when the bench starts).
const MARKETS: ReadonlyArray<Market> = [
  { operator: "carrier1_cm", currency: "XAF", e164: (n) => `+23767${pad(n, 7)}`, national: (n) => `67 ${pad(n, 7)}` },
  { operator: "carrier2_cm", currency: "XAF", e164: (n) => `+23769${pad(n, 7)}`, national: (n) => `6 9${pad(n, 7)}` },
  { operator: "carrier1_ci", currency: "XOF", e164: (n) => `+22507${pad(n, 8)}`, national: (n) => `07 ${pad(n, 8)}` },
  { operator: "carrier2_sn", currency: "XOF", e164: (n) => `+22177${pad(n, 7)}`, national: (n) => `77 ${pad(n, 7)}` },
  { operator: "carrier7_tg", currency: "XOF", e164: (n) => `+22890${pad(n, 6)}`, national: (n) => `90 ${pad(n, 6)}` }
]

export interface CsvShape {
  readonly rows: number
  /** Only this market (index into MARKETS); default: all five, rotating. */
  readonly market?: number
  readonly prefix?: string
}

export const samplePhones = (): ReadonlyArray<{ phone: string; country: string }> =>
  MARKETS.flatMap((m, i) => [
    { phone: m.e164(1234567 + i), country: m.operator.slice(-2).toUpperCase() },
    { phone: m.national(7654321 + i), country: m.operator.slice(-2).toUpperCase() }
  ])

export const lineOf = (i: number, shape: CsvShape): string => {
  const m = MARKETS[shape.market ?? i % MARKETS.length]
  const n = Math.floor(i / MARKETS.length) * 7919 + i
  const phone = i % 2 === 0 ? m.e164(n) : m.national(n)
  const amount = 500 + ((i * 37) % 20_000)
  // Named after the number: rows whose numbers meet (the ranges wrap) pay one recipient (one phone, one recipient).
  return `${shape.prefix ?? "P"}${i},${amount},${m.currency},${m.operator},${phone},Seller ${m.e164(n).slice(-9)} Example,seller${i}@example.com,Settlement ${i},${i % 97}\n`
}

export const HEADER = "id,amount,currency,operator,phone,name,email,description,meta.order\n"

/** Writes the file in large chunks; returns its size in bytes. */
export const writeCsv = async (file: string, shape: CsvShape): Promise<number> => {
  const out = createWriteStream(file)
  let size = 0
  let buf = HEADER
  for (let i = 0; i < shape.rows; i++) {
    buf += lineOf(i, shape)
    if (buf.length > 1 << 20) {
      size += Buffer.byteLength(buf)
      if (!out.write(buf)) await once(out, "drain")
      buf = ""
    }
  }
  size += Buffer.byteLength(buf)
  out.end(buf)
  await once(out, "finish")
  return size
}
