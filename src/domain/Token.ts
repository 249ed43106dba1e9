/**
 * The row token (DESIGN 7): 12 base32 characters (60 bits) at the start of a payout's description,
 * `[token] ...`, and in payout_details. Deterministic from what the row IS, not from where or how the
 * file was stored, so the same payout is recognised by any store, any working directory, after a key
 * rotation, and in a re-saved copy of the file (CRLF, BOM, re-quoted): from the account, the merchant's
 * row id in its canonical form (`canonicalId`: `S-1001` and `s-1001` are one payout) and the `payouts
 * retry` generation when the row has an id; else from the account, the row's
 * normalised content (E.164 phone, amount in minor units, currency, operator) and its occurrence index
 * among identical rows of the file.
 */
import { Schema } from "effect"
import { createHash } from "node:crypto"
import type { BatchId } from "./Ids.ts"
import { canonicalId } from "./Text.ts"

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"

export const TOKEN_LENGTH = 12

/** What a token of ours looks like (so `reconcile --account` ignores other tools' bracketed prefixes). */
export const TOKEN_PATTERN = /^[a-z2-7]{12}$/

/** A row's token: minted here, stored as given, matched at the start of a payout's description. */
export const Token = Schema.String.pipe(Schema.brand("Token"))
export type Token = typeof Token.Type

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
    /** The `payouts retry` generation (absent or 0: a batch that is no retry, whose tokens never change). */
    readonly generation?: number
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
    ? `v2|${account}|id|${canonicalId(key.id)}|g${key.generation}`
    : `v2|${account}|content|${key.phone}|${key.amountMinor}|${key.currency.toUpperCase()}|${key.operator.toLowerCase()}|${key.occurrence}${
      (key.generation ?? 0) > 0 ? `|g${key.generation}` : ""
    }`

const brand = (digest: Buffer): Token => Token.make(base32(digest))

export const mintToken = (account: string, key: TokenKey): Token =>
  brand(createHash("sha256").update(material(account, key)).digest())

/** A placeholder token for a row that is never sent (rejected at intake): unique within the batch. */
export const rejectedRowToken = (batchId: BatchId, idx: number): Token =>
  brand(createHash("sha256").update(`${batchId}|${idx}`).digest())

export const contentKeyOf = (phone: string, amountMinor: number, currency: string, operator: string): string =>
  `${phone}|${amountMinor}|${currency.toUpperCase()}|${operator.toLowerCase()}`

/** How a description carries a token: `[token]` first. */
export const tokenPrefix = (token: string): string => `[${token}]`

/** The description a payout is sent with: the token first, then the row's own text. */
export const withToken = (token: string, description: string): string => `${tokenPrefix(token)} ${description}`

/** Whether a description starts with exactly this `[token]`. */
export const carriesToken = (description: string | null | undefined, token: string): boolean =>
  description?.startsWith(tokenPrefix(token)) === true

/**
 * The token a description starts with: `[` then 1 to 16 characters without `]` or space, then `]`.
 * Wider than ours (TOKEN_PATTERN) so that other tools' prefixes are seen, and told apart, too.
 */
export const tokenOfDescription = (description: string | null | undefined): Token | null => {
  if (description == null) return null
  const match = /^\[([^\]\s]{1,16})\]/.exec(description)
  return match === null ? null : Token.make(match[1])
}
