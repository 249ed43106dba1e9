/** Every spelling of a credential a careless service or driver has been seen to echo (issue 30, item 6). */
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64")
const urlSafe = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

export const spellingsOf = (value: string): ReadonlyArray<string> => [
  value,
  value.toUpperCase(),
  value.toLowerCase(),
  JSON.stringify(value).slice(1, -1).replace(/\//g, "\\/"),
  [...value].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)).join(""),
  encodeURIComponent(value),
  encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  [...Buffer.from(value)].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`)).join(""),
  b64(value).replace(/=+$/, ""),
  urlSafe(b64(value))
]

/** The base64 of `key:secret` as a Basic header carries it. */
export const basicOf = (key: string, secret: string): ReadonlyArray<string> => {
  const encoded = b64(`${key}:${secret}`).replace(/=+$/, "")
  return [encoded, urlSafe(encoded)]
}

/** The spellings of the key and the secret found in `bytes`, named. */
export const leaksIn = (bytes: Buffer, key: string, secret: string): ReadonlyArray<string> =>
  [...spellingsOf(key), ...spellingsOf(secret), ...basicOf(key, secret)].filter((needle) => bytes.includes(needle))
