/** The card checkout page: plain, accessible HTML with inline styles and no external assets. */
import { formatAmount } from "../domain/Money.ts"
import type { Txn } from "./State.ts"

export interface CardForm {
  readonly number: string
  readonly expiry: string
  readonly cvv: string
}

export type CardErrors = Partial<Record<keyof CardForm, string>>

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f4;color:#111}
main{max-width:26rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border:1px solid #ccc;border-radius:.5rem}
h1{font-size:1.4rem}label{display:block;font-weight:600;margin-top:1rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #555;border-radius:.25rem}
input[aria-invalid=true]{border:2px solid #b00020}.error{color:#b00020;margin:.25rem 0 0}
.summary{border:2px solid #b00020;padding:.5rem 1rem;margin-bottom:1rem}
.row{display:flex;gap:1rem}.row>div{flex:1}.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.25rem;border:1px solid #111;cursor:pointer}
button.pay{background:#0b5;color:#000;font-weight:700}:focus{outline:3px solid #1a5fd0;outline-offset:2px}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{font-weight:600}`

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`

const LABELS: Record<keyof CardForm, string> = { number: "Card number", expiry: "Expiry date (MM/YY)", cvv: "Security code (CVV)" }
const AUTOCOMPLETE: Record<keyof CardForm, string> = { number: "cc-number", expiry: "cc-exp", cvv: "cc-csc" }

const field = (name: keyof CardForm, form: CardForm, errors: CardErrors) => {
  const error = errors[name]
  const described = error === undefined ? "" : ` aria-invalid="true" aria-describedby="${name}-error"`
  return `<div><label for="${name}">${LABELS[name]}</label>
<input id="${name}" name="${name}" value="${escape(form[name])}" inputmode="numeric" autocomplete="${AUTOCOMPLETE[name]}"${described}>
${error === undefined ? "" : `<p class="error" id="${name}-error">${escape(error)}</p>`}</div>`
}

const summary = (txn: Txn) => `<dl>
<dt>Merchant reference</dt><dd>${escape(txn.reference)}</dd>
<dt>Amount</dt><dd>${escape(formatAmount(txn.amount, txn.currency))} ${escape(txn.currency)}</dd>
<dt>Description</dt><dd>${escape(txn.description)}</dd></dl>`

export const checkoutPage = (txn: Txn, form: CardForm, errors: CardErrors, notice?: string) => {
  const messages = Object.values(errors)
  const alert =
    messages.length === 0 && notice === undefined
      ? ""
      : `<div class="summary" role="alert"><h2>Please check your card details</h2><ul>${[...(notice === undefined ? [] : [notice]), ...messages]
          .map((m) => `<li>${escape(m)}</li>`)
          .join("")}</ul></div>`
  return layout(
    `Pay ${txn.currency} ${formatAmount(txn.amount, txn.currency)} - Sandbox checkout`,
    `<h1>Card payment</h1>${summary(txn)}${alert}
<form method="post" action="/checkout/${escape(txn.reference)}" novalidate>
${field("number", form, errors)}<div class="row">${field("expiry", form, errors)}${field("cvv", form, errors)}</div>
<div class="actions"><button class="pay" type="submit" name="action" value="pay">Pay now</button>
<button type="submit" name="action" value="cancel">Cancel payment</button></div></form>
<p><small>Sandbox: no real card is charged.</small></p>`
  )
}

export const closedPage = (title: string, message: string) =>
  layout(title, `<h1>${escape(title)}</h1><p role="alert">${escape(message)}</p>`)
