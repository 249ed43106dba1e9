/**
 * How the service's records read in a terminal: amounts with the locale's separators, times in UTC
 * without milliseconds. Phone numbers are masked wherever they are shown.
 */
import type { BalanceSummary, Pagination, StatusRecord, Wallet, WalletSummary, WalletTransaction } from "../api/Schemas.ts"
import { maskPhone } from "../domain/Phone.ts"
import type { Format } from "../output/Format.ts"
import { amount, column, defaultFormat, type Fit, orDash, renderRecord, renderTable } from "./Table.ts"

export const walletsTable = (wallets: ReadonlyArray<Wallet>, f: Format = defaultFormat, fit?: Fit): string =>
  wallets.length === 0
    ? "No wallets."
    : renderTable(
        [
          column<Wallet>("CURRENCY", (w) => w.currency),
          column<Wallet>("AVAILABLE", (w) => amount(w.available_balance, w.currency, f), "right"),
          column<Wallet>("BALANCE", (w) => amount(w.balance, w.currency, f), "right"),
          column<Wallet>("RESERVED", (w) => amount(w.reserved_balance, w.currency, f), "right", { drop: 1 }),
          column<Wallet>("PENDING", (w) => amount(w.pending_balance, w.currency, f), "right", { drop: 2 }),
          column<Wallet>("WALLET", (w) => w.id, "left", { drop: 4 }),
          column<Wallet>("UPDATED", (w) => f.time(w.last_updated), "left", { drop: 3 })
        ],
        wallets,
        fit
      )

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

export const transactionsTable = (transactions: ReadonlyArray<WalletTransaction>, f: Format = defaultFormat, fit?: Fit): string =>
  transactions.length === 0
    ? "No transactions match."
    : renderTable(
        [
          column<WalletTransaction>("CREATED", (t) => f.time(t.created_at)),
          column<WalletTransaction>("REFERENCE", (t) => t.reference),
          column<WalletTransaction>("TYPE", (t) => t.type),
          column<WalletTransaction>("STATUS", (t) => t.status),
          column<WalletTransaction>("CUR", (t) => t.currency),
          column<WalletTransaction>("AMOUNT", (t) => amount(t.amount, t.currency, f), "right"),
          column<WalletTransaction>("FEE", (t) => amount(t.fee, t.currency, f), "right", { drop: 1 }),
          column<WalletTransaction>("NET", (t) => amount(t.net_amount, t.currency, f), "right", { drop: 4 }),
          column<WalletTransaction>("OPERATOR", (t) => orDash(t.operator), "left", { drop: 3 }),
          column<WalletTransaction>("CUSTOMER", (t) => shorten(orDash(t.customer_name), 24), "left", { drop: 2, shrink: true }),
          column<WalletTransaction>("DESCRIPTION", (t) => shorten(orDash(t.description), 40), "left", { shrink: true })
        ],
        transactions,
        fit
      )

export const pageFooter = (pagination: Pagination, f: Format = defaultFormat): string => {
  const { current_page: page, total_pages: pages, count, total } = pagination
  const next = page < pages ? ` Next: --page ${page + 1}, or --all for every page.` : ""
  return `Page ${f.count(page)} of ${f.count(Math.max(pages, 1))}: ${f.count(count)} shown, ${f.count(total)} in all.${next}`
}

export const statusView = (record: StatusRecord, f: Format = defaultFormat): string =>
  renderRecord([
    ["Reference", record.reference],
    ["Type", record.type],
    ["Status", record.status],
    ["Description", orDash(record.status_description)],
    ["Amount", `${amount(record.amount, record.currency, f)} ${record.currency}`],
    ["Fee", `${amount(record.fee, record.currency, f)} ${record.currency}`],
    ["Operator", orDash(record.operator)],
    ["Customer", orDash(record.customer?.name)],
    ["Phone", record.customer ? maskPhone(record.customer.phone) : "-"],
    ["Email", orDash(record.customer?.email)],
    ["Provider id", orDash(record.external_transaction_id)],
    ["Created", f.time(record.created_at)],
    ["Updated", f.time(record.updated_at)],
    ["Details", record.payment_details ? JSON.stringify(record.payment_details) : "-"]
  ])

/** The same record for scripts, with the customer's phone masked as on screen. */
export const statusJson = (record: StatusRecord) => ({
  ...record,
  customer: record.customer ? { ...record.customer, phone: maskPhone(record.customer.phone) } : record.customer
})

const plain = (value: number, f: Format) => f.decimal(Number.isInteger(value) ? String(value) : value.toFixed(2))

export const summaryView = (summary: WalletSummary, f: Format = defaultFormat): string => {
  const balances =
    summary.total_balance_summary.length === 0
      ? "No balances."
      : renderTable(
          [
            column<BalanceSummary>("CURRENCY", (b) => b.currency),
            column<BalanceSummary>("TOTAL", (b) => amount(b.total_balance, b.currency, f), "right"),
            column<BalanceSummary>("AVAILABLE", (b) => amount(b.total_available, b.currency, f), "right"),
            column<BalanceSummary>("PENDING", (b) => amount(b.total_pending, b.currency, f), "right"),
            column<BalanceSummary>("RESERVED", (b) => amount(b.total_reserved, b.currency, f), "right")
          ],
          summary.total_balance_summary
        )
  const last = summary.transaction_summary.last_30_days
  const activity = renderRecord([
    ["Pay-ins", `${f.count(last.total_payin_count)} (amount ${plain(last.total_payin_amount, f)})`],
    ["Payouts", `${f.count(last.total_payout_count)} (amount ${plain(last.total_payout_amount, f)})`],
    ["Fees", plain(last.total_fee_amount, f)]
  ])
  return `${balances}\n\nLast 30 days (all currencies added together, as the service reports them):\n${activity}`
}
