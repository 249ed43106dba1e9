/**
 * The row token (DESIGN 7): 12 base32 characters (60 bits) at the start of a payout's description,
 * `[token] ...`, and in payout_details. Deterministic from what the row IS, not from where or how the
 * file was stored, so the same payout is recognised by any store, any working directory, after a key
 * rotation, and in a re-saved copy of the file (CRLF, BOM, re-quoted): from the account, the merchant's
 * row id and the `payouts retry` generation when the row has an id; else from the account, the row's
 * normalised content (E.164 phone, amount in minor units, currency, operator) and its occurrence index
 * among identical rows of the file.
 */
import { createHash } from "node:crypto"

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"

export const TOKEN_LENGTH = 12

/** What a token of ours looks like (so `reconcile --account` ignores other tools' bracketed prefixes). */
export const TOKEN_PATTERN = /^[a-z2-7]{12}$/

export type TokenKey =
  | { readonly _tag: "Id"; readonly id: string; readonly generation: number }
  | {
    readonly _tag: "Content"
    readonly phone: string
    readonly amountMinor: number
    readonly currency: string
    readonly operator: string
    /** 0 for the first row with this content in the file, 1 for the second, ... */
    readonly occurrence: number
  }

const base32 = (digest: Buffer): string => {
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

const material = (account: string, key: TokenKey): string =>
  key._tag === "Id"
    ? `v2|${account}|id|${key.id.trim()}|g${key.generation}`
    : `v2|${account}|content|${key.phone}|${key.amountMinor}|${key.currency.toUpperCase()}|${key.operator.toLowerCase()}|${key.occurrence}`

export const mintToken = (account: string, key: TokenKey): string =>
  base32(createHash("sha256").update(material(account, key)).digest())

/** A placeholder token for a row that is never sent (rejected at intake): unique within the batch. */
export const rejectedRowToken = (batchId: string, idx: number): string =>
  base32(createHash("sha256").update(`${batchId}|${idx}`).digest())

export const contentKeyOf = (phone: string, amountMinor: number, currency: string, operator: string): string =>
  `${phone}|${amountMinor}|${currency.toUpperCase()}|${operator.toLowerCase()}`
