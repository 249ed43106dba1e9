import { createHash } from "node:crypto"

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"

export const TOKEN_LENGTH = 12

/**
 * The row token put at the start of a payout's description: 12 base32 characters (60 bits) of
 * sha256(batchId|idx), deterministic so a crash and a resume name the same payout the same way.
 */
export const rowToken = (batchId: string, idx: number): string => {
  const digest = createHash("sha256").update(`${batchId}|${idx}`).digest()
  let bits = 0
  let value = 0
  let out = ""
  for (const byte of digest) {
    value = ((value << 8) | byte) & 0xffff
    bits += 8
    while (bits >= 5 && out.length < TOKEN_LENGTH) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    if (out.length === TOKEN_LENGTH) break
  }
  return out
}

/** What a token of ours looks like (so `reconcile --account` ignores other tools' bracketed prefixes). */
export const TOKEN_PATTERN = /^[a-z2-7]{12}$/
