/**
 * One phone, one recipient (issue 30 item 2): within a file, a phone number paid under a second name
 * is refused from the second row on, naming the first row, unless shared phones are allowed. Fed in
 * file order by the row checker (`makeRowChecker`). Kept light for a big file: the phone as
 * a 64-bit hash, and the first line and name of each phone as UTF-8 bytes in blocks of a megabyte.
 */
import { hasTrailingZeros, maskPhone } from "../domain/Phone.ts"
import { visible } from "../domain/Text.ts"
import type { PhoneRecipient } from "../store/Model.ts"
import type { RowError } from "./RowError.ts"
import { fastHash64, LineTable } from "./ValidateKeys.ts"

/** A name as compared: accents, case and runs of spaces folded ("  Amína  BELLO" is "amina bello"). */
export const foldName = (name: string): string =>
  name.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim()

/** A row accepted under `--allow-shared-phone` that pays a phone an earlier row pays to another name. */
export interface SharedPhoneRow {
  readonly line: number
  readonly phone: string
  readonly name: string
  readonly firstLine: number
  readonly firstName: string
}

/** How many accepted shared rows the summary lists by line (the count is always exact). */
export const SHARED_LISTED = 100

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Bytes of one block of the name store: blocks are added, never copied. */
const NAME_BLOCK = 64 * 1024

export class SharedPhones {
  /** Phone hash -> where its first row's line and name are in `blocks`, + 1. */
  private readonly phones = new LineTable()
  /** Each first row as its line (4 bytes), its name's length (2 bytes) and the name in UTF-8. */
  private readonly blocks: Array<Uint8Array> = []
  private used = NAME_BLOCK
  private readonly listed: Array<SharedPhoneRow> = []
  private count = 0

  constructor(readonly allowed: boolean) {}

  /** The accepted shared rows (the first `SHARED_LISTED`) and how many there were. */
  get accepted(): { readonly count: number; readonly rows: ReadonlyArray<SharedPhoneRow> } {
    return { count: this.count, rows: this.listed }
  }

  /**
   * For a row valid on its own, in file order: the refusal when an earlier row pays its phone (E.164)
   * to another name (undefined when allowed, noted then for the summary).
   */
  check(phone: string, name: string, line: number, column: string): RowError | undefined {
    const hash = fastHash64(phone)
    // At most 3 bytes a UTF-16 unit, names being at most 1,000 characters.
    const room = 6 + Math.min(name.length * 3, 0xffff)
    if (this.used + room > NAME_BLOCK) {
      this.blocks.push(new Uint8Array(NAME_BLOCK))
      this.used = 0
    }
    const at = (this.blocks.length - 1) * NAME_BLOCK + this.used
    const entry = this.phones.addOrGetHL(hash.hi, hash.lo, at + 1)
    if (entry === undefined) {
      this.add(name, line, room)
      return undefined
    }
    const first = this.entryAt(entry - 1)
    if (foldName(first.name) === foldName(name)) return undefined
    if (this.allowed) {
      this.count++
      if (this.listed.length < SHARED_LISTED) this.listed.push({ line, phone, name, firstLine: first.line, firstName: first.name })
      return undefined
    }
    return { line, column, value: phone, reason: sharedPhoneReason(phone, first.line, first.name, name) }
  }

  private add(name: string, line: number, room: number): void {
    const block = this.blocks[this.blocks.length - 1]
    const at = this.used
    // Encoded in place: no buffer per row.
    const length = encoder.encodeInto(name, block.subarray(at + 6, at + room)).written
    block[at] = line >>> 24
    block[at + 1] = (line >>> 16) & 0xff
    block[at + 2] = (line >>> 8) & 0xff
    block[at + 3] = line & 0xff
    block[at + 4] = length >>> 8
    block[at + 5] = length & 0xff
    this.used += 6 + length
  }

  private entryAt(position: number): { readonly line: number; readonly name: string } {
    const block = this.blocks[Math.floor(position / NAME_BLOCK)]
    const at = position % NAME_BLOCK
    const line = ((block[at] << 24) | (block[at + 1] << 16) | (block[at + 2] << 8) | block[at + 3]) >>> 0
    const length = (block[at + 4] << 8) | block[at + 5]
    return { line, name: decoder.decode(block.subarray(at + 6, at + 6 + length)) }
  }
}

/** The refusal's words; a number ending in zeros is most likely a spreadsheet's rounding, said so. */
export const sharedPhoneReason = (phone: string, firstLine: number, firstName: string, name: string): string => {
  const first = `${phone} is paid on line ${firstLine} to "${visible(firstName)}"; a second recipient "${visible(name)}" for one phone is refused`
  return hasTrailingZeros(phone)
    ? `${first}: a spreadsheet may have lost its digits (the number ends in zeros, as scientific notation leaves it); format the column as text and re-enter the numbers (--allow-shared-phone to accept)`
    : `${first} (a spreadsheet may have lost digits; --allow-shared-phone to accept)`
}

/** A row of this file paying a phone that another batch of the account sent to another name. */
export interface HistoryShare {
  readonly line: number
  readonly phone: string
  readonly name: string
  readonly earlierName: string
  readonly earlierBatch: string
  readonly earlierFile: string
  readonly earlierLine: number
}

/** How many history findings are kept for the messages and the summary (the count is always exact). */
export const HISTORY_LISTED = 100

/** A row as the history is asked about it. */
export interface PhoneRow {
  readonly line: number
  readonly phone: string
  readonly name: string
}

/** The rows of `rows` paying a phone that one of `earlier` (other batches' sent rows) paid to another name. */
export const historyShares = (rows: ReadonlyArray<PhoneRow>, earlier: ReadonlyArray<PhoneRecipient>): Array<HistoryShare> => {
  if (earlier.length === 0) return []
  const byPhone = new Map<string, Array<PhoneRecipient>>()
  for (const e of earlier) {
    const list = byPhone.get(e.phone)
    if (list === undefined) byPhone.set(e.phone, [e])
    else list.push(e)
  }
  const shares: Array<HistoryShare> = []
  for (const row of rows) {
    const list = byPhone.get(row.phone)
    if (list === undefined) continue
    const folded = foldName(row.name)
    const other = list.find((e) => foldName(e.name) !== folded)
    if (other !== undefined) {
      shares.push({ line: row.line, phone: row.phone, name: row.name, earlierName: other.name, earlierBatch: other.batchId, earlierFile: other.fileName, earlierLine: other.line })
    }
  }
  return shares
}

/** What intake found of shared phones: accepted in the file (allowed), and paid before under another name. */
export interface PhoneFindings {
  readonly allowed: boolean
  readonly accepted: { readonly count: number; readonly rows: ReadonlyArray<SharedPhoneRow> }
  readonly history: ReadonlyArray<HistoryShare>
  readonly historyCount: number
}

/** Gathers the history findings group after group (the first `HISTORY_LISTED` kept). */
export const makeHistoryList = () => {
  const listed: Array<HistoryShare> = []
  let count = 0
  return {
    add: (shares: ReadonlyArray<HistoryShare>) => {
      count += shares.length
      for (const s of shares) if (listed.length < HISTORY_LISTED) listed.push(s)
    },
    findings: (phones: SharedPhones): PhoneFindings => ({ allowed: phones.allowed, accepted: phones.accepted, history: listed, historyCount: count })
  }
}

/** One line for a person (validate, the confirmation, the approval request): the phone masked. */
export const describeHistoryShare = (s: HistoryShare): string =>
  `line ${s.line}: phone ${maskPhone(s.phone)} to "${visible(s.name)}" was paid to "${visible(s.earlierName)}" in ${visible(s.earlierFile)} line ${s.earlierLine} (batch ${s.earlierBatch})`

/** What the summary holds of both (phones masked); `allowed` from the request, the findings from intake when it ran. */
export const sharedPhoneFields = (allowed: boolean, findings: PhoneFindings | undefined) => ({
  ...(allowed ? { allow_shared_phone: true } : {}),
  ...(findings !== undefined && findings.accepted.count > 0
    ? {
        shared_phones: {
          count: findings.accepted.count,
          rows: findings.accepted.rows.map((r) => ({ line: r.line, phone: maskPhone(r.phone), name: r.name, first_line: r.firstLine, first_name: r.firstName }))
        }
      }
    : {}),
  ...(findings !== undefined && findings.historyCount > 0
    ? {
        shared_phones_history: {
          count: findings.historyCount,
          rows: findings.history.map((s) => ({
            line: s.line,
            phone: maskPhone(s.phone),
            name: s.name,
            earlier_name: s.earlierName,
            earlier_batch: s.earlierBatch,
            earlier_file: s.earlierFile,
            earlier_line: s.earlierLine
          }))
        }
      }
    : {})
})

/** The lines a person reads of the history findings (validate, the confirmation, the approval request). */
export const describeHistory = (findings: PhoneFindings | undefined): ReadonlyArray<string> =>
  findings === undefined || findings.historyCount === 0
    ? []
    : [
        `${findings.historyCount} row(s) pay a phone that another batch paid to another name (a spreadsheet may have lost digits; check before paying):`,
        ...findings.history.map((s) => `  ${describeHistoryShare(s)}`),
        ...(findings.historyCount > findings.history.length ? [`  ... and ${findings.historyCount - findings.history.length} more`] : [])
      ]
