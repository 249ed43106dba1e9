/**
 * Characters a person cannot see, in one place: control characters (Cc), format characters such as
 * U+200B or U+FEFF (Cf), and every separator other than a plain space (Zs, Zl, Zp). A value that holds
 * one is shown with it written as `<U+XXXX>`, in messages, errors files and logs alike, so nothing
 * outside can hide a character from a person or send an escape sequence to a terminal.
 * The e-mail rule lives here too: one rule for the intake and the sandbox.
 */

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu
// Control characters (Cc: C0, DEL and C1): what a terminal obeys instead of showing.
const CONTROL = /\p{Cc}/u
const CONTROL_ALL = /\p{Cc}/gu
const CONTROL_RUNS = /\p{Cc}+/gu
// A cell may hold tabs and line breaks (its one-line form makes them spaces), no other control character.
const STRAY_CONTROL = /(?![\t\n])\p{Cc}/u

/** Whether the text holds a control character (Cc). */
export const hasControl = (text: string): boolean => CONTROL.test(text)

/** Whether the text holds a control character other than a tab or a line feed. */
export const hasStrayControl = (text: string): boolean => STRAY_CONTROL.test(text)

/** The text with each run of control characters made one space: for a terminal or a log line. */
export const blankControl = (text: string): string => (CONTROL.test(text) ? text.replace(CONTROL_RUNS, " ") : text)

/** The text with each control character written `\\u001b`, as JSON writes it: shown, not obeyed. */
export const escapeControl = (text: string): string =>
  CONTROL.test(text) ? text.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : text

const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]$/

/** An e-mail address as a mail server takes it (ASCII, at most 254 characters, a local part of at most 64). */
export const isEmail = (text: string): boolean => text.length <= 254 && text.lastIndexOf("@") <= 64 && EMAIL.test(text)

/** `U+200B` for a code point, four hex digits at least. */
export const codePointName = (codePoint: number): string => `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`

/** Whether the text holds a character a person cannot see (a plain space is visible). */
export const hasInvisible = (text: string): boolean => INVISIBLE.test(text)

/** The text with each invisible character written `<U+XXXX>`: safe to print, and shows what is there. */
export const visible = (text: string): string =>
  INVISIBLE.test(text) ? text.replace(INVISIBLE_ALL, (c) => `<${codePointName(c.codePointAt(0) ?? 0)}>`) : text

export interface InvisibleAt {
  readonly codePoint: number
  /** 1-based, counted in characters (code points) as a person counts them. */
  readonly position: number
}

/** The first invisible character of the text and where it stands, if any. */
export const firstInvisible = (text: string): InvisibleAt | undefined => {
  if (!INVISIBLE.test(text)) return undefined
  let position = 0
  for (const c of text) {
    position++
    if (INVISIBLE.test(c)) return { codePoint: c.codePointAt(0) ?? 0, position }
  }
  return undefined
}

/** What kind of invisible character a code point is, in words for a message. */
export const invisibleKind = (codePoint: number): string => {
  const c = String.fromCodePoint(codePoint)
  if (/\p{Cc}/u.test(c)) return "a control character"
  if (/\p{Zs}/u.test(c)) return "a space other than a plain space"
  if (/[\p{Zl}\p{Zp}]/u.test(c)) return "a line separator"
  return "an invisible character"
}

/** The scripts whose letters pass for one another (plus every other script as one). */
export type Script = "Latin" | "Cyrillic" | "Greek" | "other"

const scriptOf = (letter: string): Script =>
  /\p{Script=Latin}/u.test(letter) ? "Latin" : /\p{Script=Cyrillic}/u.test(letter) ? "Cyrillic" : /\p{Script=Greek}/u.test(letter) ? "Greek" : "other"

export interface MixedScriptAt {
  readonly first: Script
  readonly other: Script
  readonly codePoint: number
  /** 1-based, in characters: the first letter of a script other than the first letter's. */
  readonly position: number
}

// A character outside ASCII: only then can a text mix scripts (the common case is decided at once).
const NON_ASCII = /[^\0-\x7f]/

/** The first letter of a second script (Latin, Cyrillic, Greek, other), if the text mixes them. */
export const mixedScript = (text: string): MixedScriptAt | undefined => {
  if (!NON_ASCII.test(text)) return undefined
  let first: Script | undefined
  let position = 0
  for (const c of text) {
    position++
    if (!/\p{L}/u.test(c)) continue
    const script = scriptOf(c)
    if (first === undefined) first = script
    else if (script !== first) return { first, other: script, codePoint: c.codePointAt(0) ?? 0, position }
  }
  return undefined
}

/**
 * Cyrillic and Greek letters that look like Latin ones, by the Latin letter they pass for. A kept
 * table (not Unicode's whole confusables list): the letters a keyboard or a copy from a document
 * actually puts into an id. Upper and lower case both, since they are mapped before the case fold.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  А: "A", В: "B", Е: "E", К: "K", М: "M", Н: "H", О: "O", Р: "P", С: "C", Т: "T", Х: "X", Ѕ: "S", І: "I", Ј: "J", Ү: "Y", Ԛ: "Q", Ԝ: "W",
  а: "a", е: "e", о: "o", р: "p", с: "c", у: "y", х: "x", ѕ: "s", і: "i", ј: "j", һ: "h", ԁ: "d", ԛ: "q", ԝ: "w", ү: "y",
  // Greek
  Α: "A", Β: "B", Ε: "E", Ζ: "Z", Η: "H", Ι: "I", Κ: "K", Μ: "M", Ν: "N", Ο: "O", Ρ: "P", Τ: "T", Υ: "Y", Χ: "X",
  ο: "o", ν: "v", ι: "i", κ: "k", ρ: "p", υ: "u", χ: "x", α: "a"
}
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join("")}]`, "gu")
// After the fold (which turns a capital outside the table, say У, into a small letter inside it), the
// table again, and what the fold leaves of a capital look-alike whose small letter looks like no Latin one.
const FOLDED_LOOK_ALIKES: Readonly<Record<string, string>> = { в: "b", к: "k", м: "m", н: "h", т: "t", η: "h", ζ: "z", β: "b", ε: "e", μ: "m", τ: "t" }
const FOLDED_LOOK_ALIKE = new RegExp(`[${Object.keys(FOLDED_LOOK_ALIKES).join("")}]`, "gu")
const DASH = /[\p{Pd}\u2212]/gu
const PLAIN_ASCII_ID = /^[\x21-\x7e]*$/

/**
 * The one form in which ids are compared (duplicates in a file, ids used by other batches, tokens):
 * Unicode NFKC (full-width forms and ligatures to their plain letters), every invisible, control or
 * unusual space character removed, every dash (Pd, U+2212) made `-`, Cyrillic and Greek look-alikes
 * made the Latin letter, case folded (upper then lower case, so `ß` and `SS` meet), and plain spaces
 * at the ends trimmed. Ids themselves are kept as written; only this form is compared.
 */
export const canonicalId = (raw: string): string => {
  // The common id (printable ASCII): the fold is the whole work.
  if (PLAIN_ASCII_ID.test(raw)) return raw.toUpperCase().toLowerCase()
  const folded = raw
    .normalize("NFKC")
    .replace(INVISIBLE_ALL, "")
    .replace(DASH, "-")
    .replace(LOOK_ALIKE, (c) => LOOK_ALIKES[c] ?? c)
    .toUpperCase()
    .toLowerCase()
    // Twice: the capital sharp s (U+1E9E) folds to ß, which folds to ss only on a second pass.
    .toUpperCase()
    .toLowerCase()
    .replace(LOOK_ALIKE, (c) => LOOK_ALIKES[c] ?? c)
    .replace(FOLDED_LOOK_ALIKE, (c) => FOLDED_LOOK_ALIKES[c] ?? c)
    .normalize("NFKC")
  return folded.replace(/^ +| +$/g, "")
}
