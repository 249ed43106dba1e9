/**
 * `--listen HOST:PORT`: where the webhook receiver listens. A wildcard host (`0`, `0.0.0.0`, `::`,
 * `[::]`, none) listens on every interface and names no host the service could post to, so it needs
 * an explicit `--callback-url`: a wildcard is never sent as a callback host.
 */
import { Effect, Option } from "effect"
import { isIPv4, isIPv6 } from "node:net"
import { UsageError } from "./Errors.ts"

export interface Listen {
  /** The host as node:http takes it (IPv6 without brackets; "" for every interface). */
  readonly host: string
  readonly port: number
  readonly everyInterface: boolean
}

export const isWildcardHost = (host: string): boolean => {
  const h = host.trim().replace(/^\[(.*)\]$/, "$1")
  if (h === "" || h === "*" || /^0+$/.test(h)) return true
  if (isIPv4(h)) return h.split(".").every((part) => Number(part) === 0)
  return isIPv6(h) && new URL(`http://[${h}]`).hostname === "[::]"
}

/** HOST:PORT as node:http takes it; `flag` names the option in the message when it is not one. */
export const parseHostPort = (flag: string, text: string): Effect.Effect<Listen, UsageError> => {
  const match = /^(.*):(\d{1,5})$/.exec(text.trim())
  if (match === null || Number(match[2]) > 65535) return Effect.fail(new UsageError({ reason: `${flag}: "${text}" is not HOST:PORT` }))
  const named = match[1].trim().replace(/^\[(.*)\]$/, "$1")
  // node:http listens everywhere for an empty host; `*` it would look up as a name.
  const host = named === "*" ? "" : named
  return Effect.succeed({ host, port: Number(match[2]), everyInterface: isWildcardHost(match[1]) })
}

/** Whether only this machine can reach `host`: 127.0.0.0/8, ::1 or localhost. */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.trim().replace(/^\[(.*)\]$/, "$1").toLowerCase()
  if (h === "localhost") return true
  if (isIPv4(h)) return h.startsWith("127.")
  return isIPv6(h) && (new URL(`http://[${h}]`).hostname === "[::1]" || /^::ffff:127\./.test(h))
}

/** `--listen` read, and refused (exit 2) when it listens everywhere without a `--callback-url`. */
export const parseListen = (text: string, callbackUrl: Option.Option<string>): Effect.Effect<Listen, UsageError> =>
  Effect.flatMap(parseHostPort("--listen", text), (listen) => {
    const port = listen.port
    if (listen.everyInterface && Option.isNone(Option.filter(callbackUrl, (url) => url.trim() !== ""))) {
      return Effect.fail(
        new UsageError({
          reason: `--listen ${text} listens on every interface, and the service cannot post webhooks to a wildcard address: ` +
            `give the receiver's public URL with --callback-url (or PAYOUTS_CALLBACK_URL), e.g. http://HOST:${port}/webhooks, ` +
            `or listen on one address (e.g. --listen 127.0.0.1:${port})`
        })
      )
    }
    return Effect.succeed(listen)
  })
