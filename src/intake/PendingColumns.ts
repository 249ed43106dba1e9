/**
 * The rows a batch would pay, as columns in typed arrays (13 bytes a row, off the JavaScript heap),
 * in fixed-size blocks never copied: a dry run of a big file keeps every row it would pay.
 */
const BLOCK = 8192

interface Block {
  readonly idxs: Int32Array
  readonly amounts: Float64Array
  readonly codes: Uint8Array
}

const newBlock = (): Block => ({ idxs: new Int32Array(BLOCK), amounts: new Float64Array(BLOCK), codes: new Uint8Array(BLOCK) })

export class PendingColumns {
  private readonly blocks: Array<Block> = []
  private readonly currencies: Array<string> = []
  private count = 0

  get length(): number {
    return this.count
  }

  push(idx: number, currency: string, amountMinor: number): void {
    const at = this.count % BLOCK
    if (at === 0) this.blocks.push(newBlock())
    const block = this.blocks[this.blocks.length - 1]
    let code = this.currencies.indexOf(currency)
    if (code === -1) code = this.currencies.push(currency) - 1
    block.idxs[at] = idx
    block.amounts[at] = amountMinor
    block.codes[at] = code
    this.count++
  }

  /** The rows in the order pushed. */
  *rows(): Generator<{ readonly idx: number; readonly currency: string; readonly amountMinor: number }> {
    for (let i = 0; i < this.count; i++) {
      const block = this.blocks[Math.floor(i / BLOCK)]
      const at = i % BLOCK
      yield { idx: block.idxs[at], currency: this.currencies[block.codes[at]], amountMinor: block.amounts[at] }
    }
  }
}
