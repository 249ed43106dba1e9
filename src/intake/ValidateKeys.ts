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
 * sha256("<E.164 phone>|<amount in minor units>|<operator>").
 */
export const repeatKeyOf = (phone: string, amountMinor: number, operator: string): string =>
  sha256Hex(repeatMaterial(phone, amountMinor, operator)).slice(0, 16)

/** A repeat key's 64 bits, as the duplicate tables take them. */
export const hashOfHex = (hex: string): Hash64 => ({
  hi: Number.parseInt(hex.slice(0, 8), 16),
  lo: Number.parseInt(hex.slice(8, 16), 16)
})

/**
 * A set of 64-bit hashes, each with the line where it was first seen. Filled to 80% at most: linear
 * probing stays cheap, and fewer slots are kept than at a lower load.
 */
export class LineTable {
  private his = new Uint32Array(1024)
  private los = new Uint32Array(1024)
  private lines = new Uint32Array(1024)
  private used = 0

  get size(): number {
    return this.used
  }

  /** The line that first added the hash, or undefined after adding it with this line. */
  addOrGet(hash: Hash64, line: number): number | undefined {
    return this.addOrGetHL(hash.hi, hash.lo, line)
  }

  /** `addOrGet` of the hash's two halves, with no object made per key (the hot loop of a big file). */
  addOrGetHL(hi: number, lo: number, line: number): number | undefined {
    if ((this.used + 1) * 5 > this.lines.length * 4) this.grow()
    const slot = this.find(hi >>> 0, lo >>> 0)
    if (this.lines[slot] !== 0) return this.lines[slot]
    this.his[slot] = hi
    this.los[slot] = lo
    this.lines[slot] = Math.max(1, line)
    this.used++
    return undefined
  }

  get(hash: Hash64): number | undefined {
    return this.getHL(hash.hi, hash.lo)
  }

  getHL(hi: number, lo: number): number | undefined {
    const slot = this.find(hi >>> 0, lo >>> 0)
    return this.lines[slot] === 0 ? undefined : this.lines[slot]
  }

  private find(hi: number, lo: number): number {
    const size = this.lines.length
    let slot = ((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0) % size
    while (this.lines[slot] !== 0 && (this.his[slot] !== hi || this.los[slot] !== lo)) slot = slot + 1 === size ? 0 : slot + 1
    return slot
  }

  /**
   * Room for `keys` keys at once: a file whose size tells its rows ahead skips every regrowth, and the
   * moments when the old and the new arrays are both alive.
   */
  reserve(keys: number): void {
    const size = Math.ceil((keys * 5) / 4) + 1
    if (size > this.lines.length) this.rehash(size)
  }

  /**
   * By half again, not double: less slack after a growth, and a smaller moment with both arrays alive.
   */
  private grow(): void {
    this.rehash(Math.ceil(this.lines.length * 1.5))
  }

  private rehash(size: number): void {
    const { his, los, lines } = this
    this.his = new Uint32Array(size)
    this.los = new Uint32Array(size)
    this.lines = new Uint32Array(size)
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === 0) continue
      const slot = this.find(his[i], los[i])
      this.his[slot] = his[i]
      this.los[slot] = los[i]
      this.lines[slot] = lines[i]
    }
  }
}
