/**
 * A column of short texts joined by line feeds (`ChunkRows`' ids, phones, ...), kept as UTF-16 code
 * units in a typed array as the rows come, not as an array of strings: a piece's thousands of strings
 * outlived every collection of the young generation while the piece was checked, so each was copied
 * there and most were promoted to the old one (a worker's young generation fills every few hundred
 * rows), garbage there until a full collection. A text with a surrogate (an emoji, say) turns the
 * column back into strings, so the join is exact whatever the text.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

// ignoreBOM: a U+FEFF at the start of the first text is a character of it, not a byte order mark.
const decoder = new TextDecoder("utf-16le", { ignoreBOM: true })

export class TextColumn {
  private units = new Uint16Array(8 * 1024)
  private used = 0
  private count = 0
  /** Once a text had a surrogate: the texts so far, joined, then the later ones. */
  private strings: Array<string> | undefined = LITTLE_ENDIAN ? undefined : []

  push(text: string): void {
    if (this.strings !== undefined) {
      this.strings.push(text)
      return
    }
    const need = this.used + text.length + 1
    if (need > this.units.length) {
      const grown = new Uint16Array(Math.max(need, this.units.length * 2))
      grown.set(this.units.subarray(0, this.used))
      this.units = grown
    }
    let at = this.used
    if (this.count > 0) this.units[at++] = 10
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i)
      if (unit >= 0xd800 && unit <= 0xdfff) {
        this.strings = this.count > 0 ? [this.decoded(), text] : [text]
        return
      }
      this.units[at++] = unit
    }
    this.used = at
    this.count++
  }

  /** The texts joined by line feeds. */
  join(): string {
    return this.strings === undefined ? this.decoded() : this.strings.join("\n")
  }

  private decoded(): string {
    return decoder.decode(this.units.subarray(0, this.used))
  }
}
