/**
 * A secret found in text in every spelling a service or a driver may echo it back: as is, in any
 * letter case, JSON-escaped (`\/`, `\u002F`), URL-encoded (`%2F`, `%2f`, `+` for a space), and inside
 * base64, standard or url-safe, at any byte offset (so also inside `key:secret` of a Basic header).
 */

/** Shorter values are not looked for: they would match ordinary words. */
export const MIN_SECRET_LENGTH = 4
// A base64 fragment of a secret shorter than this is too common to be told from other text.
const MIN_BASE64_FRAGMENT = 6

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/** One character of a needle: itself, its JSON escapes or its URL encoding (the regex is case-insensitive). */
const charForms = (ch: string): string => {
  const forms = [escapeRegExp(ch)]
  // Escaped once or again (a JSON text inside a JSON string): one backslash or more.
  const units = Array.from({ length: ch.length }, (_, i) => `\\\\+u${hex(ch.charCodeAt(i), 4)}`)
  forms.push(units.join(""))
  if (/[^\p{L}\p{N}]/u.test(ch)) forms.push(`\\\\+${escapeRegExp(ch)}`)
  const url = [...new TextEncoder().encode(ch)].map((b) => `%${hex(b, 2)}`).join("")
  forms.push(url)
  if (ch === " ") forms.push("\\+")
  return forms.length === 1 ? forms[0] : `(?:${forms.join("|")})`
}

/** The base64 text that the secret's bytes alone decide, at each of the three byte offsets. */
const base64Fragments = (secret: string): ReadonlyArray<string> => {
  const bytes = new TextEncoder().encode(secret)
  const out: Array<string> = []
  for (let pad = 0; pad < 3; pad++) {
    const all = new Uint8Array(pad + bytes.length)
    all.set(bytes, pad)
    const b64 = Buffer.from(all).toString("base64")
    const fragment = b64.slice(Math.ceil((8 * pad) / 6), Math.floor((8 * all.length) / 6))
    if (fragment.length < MIN_BASE64_FRAGMENT) continue
    out.push(fragment, fragment.replace(/\+/g, "-").replace(/\//g, "_"))
  }
  return out
}

/** Every spelling of the secrets as one case-insensitive global regex; undefined when none is long enough. */
export const secretsPattern = (secrets: ReadonlyArray<string>): RegExp | undefined => {
  const needles = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap((s) => [s, ...base64Fragments(s)]))]
  if (needles.length === 0) return undefined
  // Longest first: an alternation takes the first that matches.
  needles.sort((a, b) => b.length - a.length)
  return new RegExp(needles.map((needle) => [...needle].map(charForms).join("")).join("|"), "giu")
}

export const REDACTED = "[redacted]"

/** The text with every spelling of the secrets replaced by `[redacted]`. */
export const makeRedact = (secrets: ReadonlyArray<string>): ((text: string) => string) => {
  const pattern = secretsPattern(secrets)
  return pattern === undefined ? (text) => text : (text) => text.replace(pattern, REDACTED)
}

// scheme://user:password@ : the password of any URL in a text (a driver's error, a log line).
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):([^\s/?#@]*)@/gi

/** Every URL in the text with its password shown as `***` (the user kept). */
export const maskUrlPasswords = (text: string): string => text.replace(URL_PASSWORD, "$1:***@")
