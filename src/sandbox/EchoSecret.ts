/**
 * The `echo_secret` fault: a careless service that echoes the caller's credentials back, in one of
 * the spellings a client's scrubbing must still find. A share of the requests is refused (422, before
 * any work) with the key and secret in its message; every other answer carries them too, in the
 * message of a refusal, or in an extra `echo` field of a success (and its record's status_description).
 */
import { HttpServerResponse } from "@effect/platform"
import { answerA, isObject } from "./Http.ts"

export const ECHO_FORMS = ["plain", "json", "url", "upper", "base64", "basic", "bearer"] as const
export type EchoForm = (typeof ECHO_FORMS)[number]

export interface EchoSecret {
  readonly form: EchoForm
  /** The share of requests refused with the echo (the rest answered with it). */
  readonly refuse: number
}

export interface Credentials {
  readonly key: string
  readonly secret: string
}

const hex2 = (b: number) => b.toString(16).padStart(2, "0")

/** A text in one spelling; `json` and `url` escape more than they must, as some encoders do. */
const spell = (text: string, form: EchoForm): string => {
  switch (form) {
    case "plain":
    case "basic":
    case "bearer":
      return text
    case "json":
      // The text of the message holds the escapes themselves (the body escapes them again).
      return [...text].map((ch) => (ch === "/" ? "\\/" : /[A-Za-z0-9]/.test(ch) ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)).join("")
    case "url":
      // Lower-case hex, every byte that is not a letter or digit.
      return [...new TextEncoder().encode(text)].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${hex2(b)}`)).join("")
    case "upper":
      return text.toUpperCase()
    case "base64":
      return Buffer.from(text, "utf8").toString("base64")
  }
}

/** The words a careless service writes: the credentials in the fault's spelling. */
export const echoText = (credentials: Credentials, form: EchoForm): string => {
  if (form === "basic") return `sent with Authorization: Basic ${Buffer.from(`${credentials.key}:${credentials.secret}`, "utf8").toString("base64")}`
  if (form === "bearer") return `sent with Authorization: Bearer ${credentials.secret} (key ${credentials.key})`
  return `sent with key ${spell(credentials.key, form)} and secret ${spell(credentials.secret, form)}`
}

/** The refusal made before any work: a validation answer whose message and errors echo the credentials. */
export const echoRefusal = (credentials: Credentials, form: EchoForm) => {
  const echo = echoText(credentials, form)
  return answerA(422, `Request rejected (${echo})`, { request: [`The request was rejected; ${echo}.`] })
}

/** An answer with the echo added: an envelope A's message, or a success's extra `echo` field. */
export const withEcho = (response: HttpServerResponse.HttpServerResponse, echo: string): HttpServerResponse.HttpServerResponse => {
  if (response.body._tag !== "Uint8Array") return response
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return response
  }
  if (!isObject(json)) return response
  const data = json.data
  // A status record's description is stored by the client as a failed row's error: echo there too.
  const described = isObject(data) && typeof data.status_description === "string" ? { data: { ...data, status_description: `${data.status_description} (${echo})` } } : {}
  const echoed = json.success === false && typeof json.message === "string" ? { ...json, message: `${json.message} (${echo})` } : { ...json, echo, ...described }
  return HttpServerResponse.text(JSON.stringify(echoed), { status: response.status, contentType: "application/json", headers: response.headers })
}
