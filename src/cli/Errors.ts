/**
 * Failures of the command line itself (settings, arguments). The service's errors live in src/api.
 */
import { Data } from "effect"

/** A setting that is neither in the environment nor on the command line. */
export class MissingSetting extends Data.TaggedError("MissingSetting")<{
  readonly variable: string
  readonly flag: string
}> {
  override get message() {
    return `Missing setting: set ${this.variable} or pass --${this.flag}`
  }
}

/** A setting present but unusable; `reason` must never quote a secret. */
export class InvalidSetting extends Data.TaggedError("InvalidSetting")<{
  readonly variable: string
  readonly flag: string
  readonly reason: string
}> {
  override get message() {
    return `Invalid setting ${this.variable} / --${this.flag}: ${this.reason}`
  }
}

/**
 * The service refused the key and secret: the service they were sent to, and what to check (`advice`,
 * naming where each setting came from: config/Sources.ts; the generic list when not given).
 */
export class CredentialsRefused extends Data.TaggedError("CredentialsRefused")<{
  readonly baseUrl: string
  readonly detail: string
  readonly advice?: string
}> {
  override get message() {
    return `the service at ${this.baseUrl} refused the credentials (401: ${this.detail}). ${this.advice ?? CHECK_CREDENTIALS}`
  }
}

/** What a person checks when a key is refused: the settings (flag and variable) that hold it, and the URL. */
export const CHECK_CREDENTIALS =
  "Check the API key and secret in use (--api-key / PAYOUTS_API_KEY, --api-secret / PAYOUTS_API_SECRET) and that they belong to this service (--base-url / PAYOUTS_BASE_URL)."

/** A command-line value refused before anything is sent. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}
