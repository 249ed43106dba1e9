/**
 * Keys for duplicate detection, memory-light for a million rows: each key is kept as a 64-bit hash
 * (two uint32 in typed arrays, open addressing) with the line that first used it, about 24 bytes a
 * key, instead of the key's text in a Set. Within a file the hash need not be cryptographic (nobody
 * gains by colliding two of their own rows, and a collision refuses a row, never pays one twice):
 * `fastHash64` is cheaper than a sha256. The repeat key compared with other batches (`repeatKeyOf`)
 * stays sha256: the store keeps it.
 */
import * as crypto from "node:crypto"

export interface Hash64 {
  readonly hi: number
  readonly lo: number
}

const digest = (text: string): Buffer => crypto.createHash("sha256").update(text, "utf8").digest()

// One call, no Hash object per row; Node before 20.12 has no `crypto.hash`.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function" ? (text) => crypto.hash("sha256", text, "hex") : (text) => digest(text).toString("hex")

/**
 * 64 bits from two 32-bit multiply-xorshift lanes over the UTF-16 code units (cyrb53's mixing, both
 * lanes kept): collisions among a million distinct keys have a chance of about 3e-8.
 */
export const fastHash64 = (text: string): Hash64 => {
  let h1 = 0xdeadbeef ^ text.length
  let h2 = 0x41c6ce57 ^ text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return { hi: h2 >>> 0, lo: h1 >>> 0 }
}

/** What two rows repeating each other share: the text `repeatKeyOf` and `fastHash64` are taken of. */
export const repeatMaterial = (phone: string, amountMinor: number, operator: string): string => `${phone}|${amountMinor}|${operator}`

export const hash64 = (text: string): Hash64 => {
  const bytes = digest(text)
  return { hi: bytes.readUInt32BE(0), lo: bytes.readUInt32BE(4) }
}

/**
 * The key another batch's rows are compared with: the first 16 hex digits of
 * sha256("<E.164 phone>|<amount in minor units>|<operator>"). Made where it is stored or asked of the
 * store (a row without an id), not for every row checked.
 */
export const repeatKeyOf = (phone: string, amountMinor: number, operator: string): string =>
  sha256Hex(repeatMaterial(phone, amountMinor, operator)).slice(0, 16)

/**
 * Sub-tables of a LineTable, by the top bits of the hash: each grows alone, and up to about a million
 * keys stays under glibc's 128 KiB mmap threshold, whose freed blocks would raise it for good.
 */
const PARTS = 256
const PART_SHIFT = 24

/**
 * A set of 64-bit hashes, each with the line where it was first seen: open addressing in 256
 * sub-tables of (hi, lo, line) triples. Each is filled to 80% at most and grows by half again, so a
 * million keys never hold an old and a new copy of the whole table at once.
 */
export class LineTable {
  private readonly parts: Array<Uint32Array> = Array.from({ length: PARTS }, () => new Uint32Array(3 * 64))
  private readonly used = new Uint32Array(PARTS)
  private count = 0

  get size(): number {
    return this.count
  }

  /** The line that first added the hash, or undefined after adding it with this line. */
  addOrGet(hash: Hash64, line: number): number | undefined {
    return this.addOrGetHL(hash.hi, hash.lo, line)
  }

  /** `addOrGet` of the hash's two halves, with no object made per key (the hot loop of a big file). */
  addOrGetHL(hi: number, lo: number, line: number): number | undefined {
    hi >>>= 0
    lo >>>= 0
    const p = hi >>> PART_SHIFT
    if ((this.used[p] + 1) * 5 > (this.parts[p].length / 3) * 4) this.grow(p)
    const table = this.parts[p]
    const at = find(table, hi, lo)
    if (table[at + 2] !== 0) return table[at + 2]
    table[at] = hi
    table[at + 1] = lo
    table[at + 2] = Math.max(1, line)
    this.used[p]++
    this.count++
    return undefined
  }

  get(hash: Hash64): number | undefined {
    return this.getHL(hash.hi, hash.lo)
  }

  getHL(hi: number, lo: number): number | undefined {
    hi >>>= 0
    lo >>>= 0
    const table = this.parts[hi >>> PART_SHIFT]
    const line = table[find(table, hi, lo) + 2]
    return line === 0 ? undefined : line
  }

  private grow(p: number): void {
    const old = this.parts[p]
    const table = new Uint32Array(3 * Math.ceil((old.length / 3) * 1.5))
    for (let i = 0; i < old.length; i += 3) {
      if (old[i + 2] === 0) continue
      const at = find(table, old[i], old[i + 1])
      table[at] = old[i]
      table[at + 1] = old[i + 1]
      table[at + 2] = old[i + 2]
    }
    this.parts[p] = table
  }
}

/** The index of the hash's triple in `table`, or of the empty triple where it goes. */
const find = (table: Uint32Array, hi: number, lo: number): number => {
  const slots = table.length / 3
  let slot = ((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0) % slots
  while (table[3 * slot + 2] !== 0 && (table[3 * slot] !== hi || table[3 * slot + 1] !== lo)) slot = slot + 1 === slots ? 0 : slot + 1
  return 3 * slot
}
