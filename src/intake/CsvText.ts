/** Low-level text helpers of the CSV reader: line breaks, the delimiter, UTF-8 error positions. */

/** Number of "\n" in text[from, to). */
export const countNewlines = (text: string, from: number, to: number): number => {
  let count = 0
  let at = text.indexOf("\n", from)
  while (at !== -1 && at < to) {
    count++
    at = text.indexOf("\n", at + 1)
  }
  return count
}

/**
 * The first line (the header), scanned as its text arrives, chunk after chunk: where it ends, and its
 * commas and semicolons outside quotes. The delimiter is the more frequent of the two; the count of
 * either is a floor on the columns, so a header too wide is known before any cell is split.
 */
export class HeaderLineScan {
  private scanned = 0
  private quoted = false
  private commas = 0
  private semicolons = 0

  /**
   * Scans `text` (the pending text, only ever grown) from where the last call stopped; returns the
   * index of the first line break outside quotes, or -1 when there is none yet, or once the line is
   * known to have more than `maxColumns` columns.
   */
  scan(text: string, maxColumns: number): number {
    for (let i = this.scanned; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 34) this.quoted = !this.quoted
      else if (this.quoted) continue
      else if (c === 10) {
        this.scanned = i
        return i
      } else if (c === 44) this.commas++
      else if (c === 59) this.semicolons++
      if (this.columns > maxColumns) {
        this.scanned = i + 1
        return -1
      }
    }
    this.scanned = text.length
    return -1
  }

  /** Semicolon when the line has more semicolons than commas outside quotes, else comma. */
  get delimiter(): "," | ";" {
    return this.semicolons > this.commas ? ";" : ","
  }

  /** The columns of the line scanned so far: exact once it ended, a floor before. */
  get columns(): number {
    return Math.max(this.commas, this.semicolons) + 1
  }
}

/** Line breaks (LF, CRLF or lone CR) in bytes[0, upTo). */
export const lineBreaksBefore = (bytes: Uint8Array, upTo: number, afterCR: boolean): number => {
  let count = 0
  for (let i = 0; i < upTo; i++) {
    const b = bytes[i]
    if (b === 0x0a && !(i === 0 ? afterCR : bytes[i - 1] === 0x0d)) count++
    else if (b === 0x0d) count++
  }
  return count
}

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80

/**
 * Offset of the first byte that cannot start or continue a UTF-8 sequence, skipping continuation
 * bytes at the start (a character begun in the previous chunk); -1 when none is found.
 */
export const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  let i = 0
  while (i < 3 && isContinuation(bytes[i])) i++
  while (i < bytes.length) {
    const b = bytes[i]
    if (b < 0x80) {
      i++
      continue
    }
    const size = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
    if (size === 0) return i
    const second = bytes[i + 1]
    if (second === undefined) return -1
    const low = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80
    const high = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf
    if (second < low || second > high) return i
    for (let k = 2; k < size; k++) {
      if (i + k >= bytes.length) return -1
      if (!isContinuation(bytes[i + k])) return i
    }
    i += size
  }
  return -1
}

/**
 * CRLF and lone CR read as LF across chunks: a CR at the end of one chunk is held back until the next
 * shows whether an LF follows it.
 */
export class LineBreakNormaliser {
  carriedCR = false

  push(decoded: string, last: boolean): string {
    let text = this.carriedCR ? `\r${decoded}` : decoded
    this.carriedCR = !last && text.endsWith("\r")
    if (this.carriedCR) text = text.slice(0, -1)
    return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text
  }
}
