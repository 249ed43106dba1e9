/**
 * Characters a person cannot see, in one place: control characters (Cc), format characters such as
 * U+200B or U+FEFF (Cf), and every separator other than a plain space (Zs, Zl, Zp). A value that holds
 * one is shown with it written as `<U+XXXX>`, in messages, errors files and logs alike, so nothing
 * outside can hide a character from a person or send an escape sequence to a terminal.
 */

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu

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
