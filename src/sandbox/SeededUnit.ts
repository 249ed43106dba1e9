/** A draw fixed by seed, salt and key rather than by order, for faults every lookup must see alike. */

/**
 * A number in [0, 1) fixed by the seed, a salt and a key (a transaction's seq): the same listing
 * draws the same value every time, whatever was asked before. FNV-1a, then a murmur3 finaliser.
 */
export const seededUnit = (seed: number, salt: string, key: number): number => {
  let h = 0x811c9dc5
  for (const ch of `${seed}:${salt}:${key}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 2 ** 32
}
