/**
 * What every page of the console shares (DESIGN 13): who is signed in, what their role lets them
 * do, and the page frame. The server (Server.ts) provides `SignedIn` to every route behind the
 * sign-in and checks the CSRF token of every POST before a route runs, so a page's own handlers
 * only check the role their decision needs.
 */
import { HttpServerResponse } from "@effect/platform"
import { Context, Data, Effect } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import type { RedirectUrls } from "../run/ResolveDecision.ts"
import type { Role } from "./Roles.ts"

/** What each role may do beyond seeing: approver approves and rejects, operator resolves, halts and lifts, admin manages people. */
const MAY: Record<Role, ReadonlyArray<Permission>> = {
  viewer: [],
  approver: ["approve"],
  operator: ["resolve", "halt"],
  admin: ["approve", "resolve", "halt", "people"]
}
export type Permission = "approve" | "resolve" | "halt" | "people"

export const may = (role: Role, permission: Permission) => MAY[role].includes(permission)

/** The person behind this request, and the CSRF token every form of theirs must carry (field `csrf`). */
export class SignedIn extends Context.Tag("payouts/console/SignedIn")<SignedIn, {
  readonly name: string
  readonly role: Role
  readonly csrf: string
}>() {}

/**
 * The account the console serves and the redirect URLs a resend sends: what `payouts resolve` takes
 * from its connection options. The server provides it (with the PaymentClient) to every route.
 */
export class ConsoleAccount extends Context.Tag("payouts/console/ConsoleAccount")<ConsoleAccount, {
  readonly accountId: AccountId
  readonly urls: RedirectUrls
}>() {}

export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly name: string; readonly permission: Permission }> {}

/** Fails with `Forbidden` (rendered as 403 by the server) unless the signed-in person may do `permission`. */
export const requirePermission = (permission: Permission) =>
  Effect.flatMap(SignedIn, (who) => (may(who.role, permission) ? Effect.succeed(who) : Effect.fail(new Forbidden({ name: who.name, permission }))))

/** Text for HTML: every value from the store or a file goes through this before it is written into a page. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"))

/** The hidden field every form carries. */
export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`

/** The navigation's links, in order; each page marks its own as current. */
export const NAVIGATION = [
  { href: "/batches", label: "Batches" },
  { href: "/approvals", label: "Approvals" },
  { href: "/attention", label: "Attention" },
  { href: "/workers", label: "Workers" },
  { href: "/account", label: "Account" }
] as const

/**
 * The document every answer of the console is: `title` (text), `header` and `body` (trusted HTML).
 * A skip link first, then the header, then one main region: the focus order a keyboard walks.
 */
export const frame = (title: string, header: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · payouts</title><link rel="stylesheet" href="/assets/console.css"><script src="/assets/console.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>${header}
<main id="main" tabindex="-1">${body}</main></body></html>`

/** A whole page: title, navigation (with the signed-in name and a sign-out form) and `body` (trusted HTML). */
export const page = (title: string, body: string) =>
  Effect.map(SignedIn, (who) => {
    const nav = NAVIGATION.map((l) => `<li><a href="${l.href}"${l.label === title ? ' aria-current="page"' : ""}>${l.label}</a></li>`).join("")
    const header = `<header><nav aria-label="Main"><ul>${nav}</ul></nav>
<form method="post" action="/sign-out" class="who">${csrfField(who.csrf)}<span>${escapeHtml(who.name)} (${who.role})</span> <button type="submit">Sign out</button></form></header>`
    return HttpServerResponse.html(frame(title, header, `<h1>${escapeHtml(title)}</h1>${body}`))
  })
