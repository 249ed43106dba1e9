/**
 * The Account page (DESIGN 11 and 13): the wallets as the service tells them now, the listing
 * mirror's complete days, the open alarms, and the account halt with its `Halt` and `Lift` forms. A
 * halt or lift is run/AccountHalt.ts, as `payouts halt` runs it, by the signed-in person with why.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import { type Format, userFormat } from "../../output/Format.ts"
import { haltAccount, liftHalt } from "../../run/AccountHalt.ts"
import { dayOf, DAY_MS, daysBetween, HISTORY_DAYS } from "../../run/ListingDays.ts"
import { describeHalt } from "../../run/Safeguards.ts"
import { AccountRecords } from "../../store/Sql/Account.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { MirrorStore } from "../../store/Sql/Mirror.ts"
import { ConsoleAccount, csrfField, escapeHtml, may, page, requirePermission, SignedIn } from "../Contract.ts"

const e = escapeHtml

/** Days of the mirror shown one by one; the rest are counted. */
const SHOWN_DAYS = 14

interface Notice {
  readonly refused: boolean
  readonly text: string
}

const walletsPart = (f: Format) =>
  Effect.gen(function* () {
    const wallets = yield* (yield* PaymentClient).wallets()
    const rows = wallets
      .map((w) => `<tr><th scope="row">${e(w.currency)}</th><td class="num">${e(f.decimal(String(w.balance)))}</td><td class="num">${e(f.decimal(String(w.available_balance)))}</td><td class="num">${e(f.decimal(String(w.reserved_balance)))}</td><td class="num">${e(f.decimal(String(w.pending_balance)))}</td></tr>`)
      .join("")
    return `<table><caption>Wallets as the service tells them now</caption><thead><tr><th scope="col">Currency</th><th scope="col">Balance</th><th scope="col">Available</th><th scope="col">Reserved</th><th scope="col">Pending</th></tr></thead><tbody>${rows}</tbody></table>`
  }).pipe(Effect.catchAll((error) => Effect.succeed(`<p role="status">The wallets could not be read from the service now (${e(error._tag)}); the rest of this page is from the state store.</p>`)))

const mirrorPart = (f: Format) =>
  Effect.gen(function* () {
    const { accountId } = yield* ConsoleAccount
    const now = yield* Clock.currentTimeMillis
    const days = daysBetween(now - (HISTORY_DAYS - 1) * DAY_MS, now)
    const known = yield* (yield* MirrorStore).mirrorDays(accountId, days)
    const complete = known.filter((d) => d.closed).length
    const recent = [...known].sort((a, b) => b.day.localeCompare(a.day)).slice(0, SHOWN_DAYS)
    const rows = recent
      .map((d) => `<tr><th scope="row">${e(d.day)}</th><td>${d.closed ? "complete" : d.day === dayOf(now) ? "today: still open" : "read, not yet complete"}</td><td class="num">${f.count(d.payouts)}</td><td>${e(f.time(d.readAt))}</td></tr>`)
      .join("")
    const table = rows === "" ? "<p>The listing has not been read into this store yet.</p>" : `<table><caption>The last days read, newest first</caption><thead><tr><th scope="col">Day (UTC)</th><th scope="col">State</th><th scope="col">Payouts</th><th scope="col">Last read</th></tr></thead><tbody>${rows}</tbody></table>`
    return `<p>${f.count(complete)} of the last ${HISTORY_DAYS} days are complete in the listing mirror (read twice the same, so an absence there proves a payout was not made).</p>${table}`
  })

const alarmsPart = Effect.gen(function* () {
  const { accountId } = yield* ConsoleAccount
  const alarm = yield* (yield* MirrorStore).accountAlarm(accountId)
  const batches = yield* (yield* Batches).listBatches(accountId)
  const flagged = batches.filter((b) => b.counts.unknown > 0)
  const items = [
    ...Option.match(alarm, { onNone: () => [], onSome: (a) => [`Account alarm: ${e(a.reason)}. No row is resent while it holds.`] }),
    ...flagged.map((b) => `<a href="/batches/${e(b.batchId)}">${e(b.fileName)}</a>: ${b.counts.unknown} unknown row(s)`)
  ]
  return items.length === 0 ? "<p>No open alarm.</p>" : `<ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul><p><a href="/attention">Attention</a> lists every row that needs a person.</p>`
})

const haltPart = Effect.gen(function* () {
  const { accountId } = yield* ConsoleAccount
  const who = yield* SignedIn
  const halt = yield* (yield* AccountRecords).activeHalt(accountId)
  const state = Option.match(halt, {
    onNone: () => "<p>No halt in force: payouts may be sent.</p>",
    onSome: (h) => `<p role="alert" class="refused">HALTED: ${e(describeHalt(h))}. No new payout leaves any runner of this account.</p>`
  })
  if (!may(who.role, "halt")) return `${state}<p>Halting and lifting need the operator or admin role.</p>`
  const halted = Option.isSome(halt)
  const action = halted ? "lift" : "halt"
  const label = halted ? "Lift" : "Halt"
  return `${state}<form method="post" action="/account/${action}">${csrfField(who.csrf)}
<p><label for="reason">Reason</label> <input id="reason" name="reason" type="text" required maxlength="500" autocomplete="off"></p>
<p><button type="submit">${label}</button></p></form>`
})

const accountPage = (notice: Option.Option<Notice>) =>
  Effect.gen(function* () {
    const f = yield* userFormat
    const shown = Option.match(notice, { onNone: () => "", onSome: (n) => `<p role="${n.refused ? "alert" : "status"}" class="${n.refused ? "refused" : "done"}">${e(n.text)}</p>` })
    const body = `${shown}<section aria-labelledby="halt"><h2 id="halt">Halt</h2>${yield* haltPart}</section>
<section aria-labelledby="alarms"><h2 id="alarms">Open alarms</h2>${yield* alarmsPart}</section>
<section aria-labelledby="wallets"><h2 id="wallets">Wallets</h2>${yield* walletsPart(f)}</section>
<section aria-labelledby="mirror"><h2 id="mirror">Listing mirror</h2>${yield* mirrorPart(f)}</section>`
    const response = yield* page("Account", body)
    return Option.isSome(notice) && notice.value.refused ? HttpServerResponse.setStatus(response, 409) : response
  })

const ReasonForm = Schema.Struct({ reason: Schema.optionalWith(Schema.Trim.pipe(Schema.maxLength(500)), { default: () => "" }) })

/** Halt or lift by the signed-in person, with why: refused without a reason, as `payouts halt` refuses a halt without one. */
const decide = (action: "halt" | "lift") =>
  Effect.gen(function* () {
    const who = yield* requirePermission("halt")
    const { accountId } = yield* ConsoleAccount
    const form = yield* HttpServerRequest.schemaBodyUrlParams(ReasonForm).pipe(Effect.orElseSucceed(() => ({ reason: "" })))
    if (form.reason === "") return { refused: true, text: `Not done: a ${action} needs a reason, recorded for whoever looks next.` }
    if (action === "halt") {
      const done = yield* haltAccount(accountId, who.name, form.reason)
      return done.changed ? { refused: false, text: `Halted by ${who.name}: ${form.reason}.` } : { refused: true, text: "Not done: a halt was already in force; it is kept as it was." }
    }
    const done = yield* liftHalt(accountId, who.name, form.reason)
    return done.changed
      ? { refused: false, text: `Halt lifted by ${who.name}: ${form.reason}. Runs send payouts again; run a halted batch's file again to pay its waiting rows.` }
      : { refused: true, text: "Not done: no halt was in force." }
  }).pipe(Effect.flatMap((notice: Notice) => accountPage(Option.some(notice))), Effect.withSpan(`Console.${action}`))

export const accountRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/account", accountPage(Option.none())),
  HttpRouter.post("/account/halt", decide("halt")),
  HttpRouter.post("/account/lift", decide("lift"))
)
