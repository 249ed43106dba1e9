/**
 * The card checkout page at payment_url (no API credentials: a customer's browser opens it).
 * GET shows the form; POST pays, declines or cancels, then redirects to return_url or cancel_url.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Ref } from "effect"
import { SandboxContext } from "../Context.ts"
import { type CardErrors, type CardForm, checkoutPage, closedPage } from "../CheckoutPage.ts"
import { checkoutOutcome } from "../Payins.ts"
import { type SandboxState, txnOf, type Txn } from "../State.ts"
import { TEST_CARDS } from "../TestNumbers.ts"

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { "content-security-policy": CSP } })

const checkoutOf = (state: SandboxState, reference: string): Txn | undefined => {
  const txn = txnOf(state, reference)
  return txn !== undefined && txn.type === "payin" && txn.phone === null ? txn : undefined
}

const closed = (txn: Txn | undefined) => {
  if (txn === undefined) return html(closedPage("Checkout not found", "No card payment exists at this address."), 404)
  if (txn.status === "expired") return html(closedPage("Checkout expired", "This checkout page has expired (30 minutes). Please return to the merchant and start again."), 410)
  if (txn.status !== "pending") return html(closedPage("Checkout closed", `This payment is already ${txn.status}.`), 409)
  return undefined
}

const digits = (s: string) => s.replace(/[\s-]/g, "")

const luhn = (n: string) =>
  [...n].reverse().reduce((sum, ch, i) => {
    const d = Number(ch) * (i % 2 === 1 ? 2 : 1)
    return sum + (d > 9 ? d - 9 : d)
  }, 0) % 10 === 0

/** Field errors of the form; the expiry must be this month or later in sandbox time. */
export const checkCard = (form: CardForm, now: number): CardErrors => {
  const errors: CardErrors = {}
  const number = digits(form.number)
  if (number === "") errors.number = "Enter the card number."
  else if (!/^\d{12,19}$/.test(number) || !luhn(number)) errors.number = "The card number is not valid."
  else if (number !== TEST_CARDS.success && number !== TEST_CARDS.declined) {
    errors.number = `Sandbox: use the test card ${TEST_CARDS.success} (success) or ${TEST_CARDS.declined} (declined).`
  }
  const expiry = /^(\d{2})\s*\/\s*(\d{2}|\d{4})$/.exec(form.expiry.trim())
  const month = expiry === null ? 0 : Number(expiry[1])
  if (expiry === null || month < 1 || month > 12) errors.expiry = "Enter the expiry date as MM/YY."
  else {
    const year = expiry[2].length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2])
    if (Date.UTC(year, month, 1) <= now) errors.expiry = "The card has expired."
  }
  if (!/^\d{3}$/.test(form.cvv.trim())) errors.cvv = "Enter the 3-digit security code."
  return errors
}

const redirect = (target: string, txn: Txn) => {
  const url = new URL(target)
  url.searchParams.set("reference", txn.reference)
  url.searchParams.set("status", txn.status)
  return HttpServerResponse.empty({ status: 303, headers: { location: url.toString(), "cache-control": "no-store" } })
}

const show = Effect.gen(function* () {
  const { reference = "" } = yield* HttpRouter.params
  const ctx = yield* SandboxContext
  yield* ctx.processDue
  const txn = checkoutOf(yield* Ref.get(ctx.state), reference)
  return closed(txn) ?? html(checkoutPage(txn!, { number: "", expiry: "", cvv: "" }, {}))
})

/** What a submission did: the outcome applied, or nothing (the checkout closed, or the form refused). */
type Submitted = { readonly done: true; readonly txn: Txn } | { readonly done: false; readonly txn: Txn | undefined }

const submit = Effect.gen(function* () {
  const { reference = "" } = yield* HttpRouter.params
  const request = yield* HttpServerRequest.HttpServerRequest
  const ctx = yield* SandboxContext
  const params = new URLSearchParams(yield* Effect.orElseSucceed(request.text, () => ""))
  yield* ctx.processDue
  const now = yield* ctx.clock.now
  const settleDelay = ctx.settings.settlementDelaySeconds * 1000
  const cancel = params.get("action") === "cancel"
  const form: CardForm = { number: params.get("number") ?? "", expiry: params.get("expiry") ?? "", cvv: params.get("cvv") ?? "" }
  const errors = cancel ? {} : checkCard(form, now)
  const [outcome, description] = cancel
    ? (["cancelled", "Cancelled by the customer on the checkout page"] as const)
    : digits(form.number) === TEST_CARDS.success
      ? (["completed", "Card payment authorised"] as const)
      : (["failed", "Card declined by the issuer"] as const)
  // The check that the checkout is still open and the outcome: one step, so no other request slips between.
  const submitted = yield* Ref.modify(ctx.state, (state): readonly [Submitted, SandboxState] => {
    const open = checkoutOf(state, reference)
    if (open === undefined || closed(open) !== undefined || Object.keys(errors).length > 0) return [{ done: false, txn: open }, state]
    const [finished, next] = checkoutOutcome(state, open, outcome, description, now, settleDelay)
    return [{ done: true, txn: finished }, next]
  })
  if (!submitted.done) {
    const txn = submitted.txn
    return closed(txn) ?? (txn === undefined ? html("", 404) : html(checkoutPage(txn, form, errors), 422))
  }
  const txn = submitted.txn
  yield* ctx.notify([txn])
  return redirect((cancel ? txn.cancelUrl : txn.returnUrl) ?? "", txn)
})

export const checkoutRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/checkout/:reference", show),
  HttpRouter.post("/checkout/:reference", submit)
)
