/** The payout request a row becomes: the same body for its first send, a resend, and a resolve. */
import { Customer, PayoutRequest } from "../api/Schemas.ts"
import { toWire } from "../domain/Money.ts"
import { withToken } from "../domain/Token.ts"
import type { Row } from "../store/Model.ts"
import type { RunSettings } from "./RunContext.ts"

/** The API requires a callback_url; without a receiver nobody listens there and polling does the work. */
export const DEFAULT_CALLBACK_URL = "http://localhost/payouts/webhooks"

/**
 * Built without the constructor's validation (60 us of CPU per payout, most of a row's schema work):
 * the client encodes it through the same schema before it is sent, and refuses it unsent if invalid.
 */
export const payoutRequest = (row: Row, settings: Pick<RunSettings, "returnUrl" | "cancelUrl" | "callbackUrl">): PayoutRequest =>
  new PayoutRequest({
    amount: toWire(row.amountMinor ?? 0, row.currency),
    currency: row.currency,
    operator: row.operator,
    phoneNumber: row.phone,
    return_url: settings.returnUrl,
    cancel_url: settings.cancelUrl,
    callback_url: settings.callbackUrl ?? DEFAULT_CALLBACK_URL,
    description: withToken(row.token, row.description),
    customer: new Customer({ name: row.name, phone: row.phone, email: row.email }, true),
    payout_details: { ...row.details, token: row.token, ...(row.rowId === null ? {} : { id: row.rowId }) }
  }, true)
