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

/** A command-line value refused before anything is sent. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}
