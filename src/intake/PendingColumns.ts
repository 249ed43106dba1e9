/**
 * The rows a batch would pay, as columns off the JavaScript heap: 13 bytes a row in typed arrays
 * that grow by doubling, where arrays of numbers and strings cost 24. Off the heap also matters to
 * the garbage collector, which lets a heap's garbage grow with what the heap holds alive.
 */
export class PendingColumns {
  private idxs = new Int32Array(1024)
  private amounts = new Float64Array(1024)
  private codes = new Uint8Array(1024)
  private readonly currencies: Array<string> = []
  private count = 0

  get length(): number {
    return this.count
  }

  push(idx: number, currency: string, amountMinor: number): void {
    if (this.count === this.idxs.length) this.grow()
    let code = this.currencies.indexOf(currency)
    if (code === -1) code = this.currencies.push(currency) - 1
    this.idxs[this.count] = idx
    this.amounts[this.count] = amountMinor
    this.codes[this.count] = code
    this.count++
  }

  /** The rows in the order pushed. */
  *rows(): Generator<{ readonly idx: number; readonly currency: string; readonly amountMinor: number }> {
    for (let i = 0; i < this.count; i++) yield { idx: this.idxs[i], currency: this.currencies[this.codes[i]], amountMinor: this.amounts[i] }
  }

  private grow(): void {
    const size = this.idxs.length * 2
    const idxs = new Int32Array(size)
    const amounts = new Float64Array(size)
    const codes = new Uint8Array(size)
    idxs.set(this.idxs)
    amounts.set(this.amounts)
    codes.set(this.codes)
    this.idxs = idxs
    this.amounts = amounts
    this.codes = codes
  }
}
