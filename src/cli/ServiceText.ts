/** What the service did (src/jobs/ServiceProblem.ts), worded for the watcher's log and its health's `reason`. */
import type { JobProblem } from "../jobs/JobProblem.ts"
import type { ServiceTrouble } from "../jobs/ServiceProblem.ts"

export const serviceTroubleText = (trouble: ServiceTrouble): string => {
  switch (trouble._tag) {
    case "RefusedKey":
      return trouble.advice === undefined
        ? `the service refused the key (${trouble.message}): check the API key and secret in use (flag, environment or profile; payouts config shows which)`
        : `the service refused the key (${trouble.message}). ${trouble.advice}`
    case "Unreachable":
      return `the service cannot be reached: ${trouble.reason}`
    case "ServerError":
      return `the service answers HTTP ${trouble.status}: ${trouble.reason}`
    case "NoAnswer":
      return `no answer from the service: ${trouble.reason}`
    case "RateLimited":
      return `the service is rate limiting: ${trouble.message}`
    case "Answered":
      return `the service answered HTTP ${trouble.status}: ${trouble.excerpt}`
    case "Failed":
      return trouble.message
  }
}

/** Why a job is kept in processing/: the service's trouble, or the internal failure's message. */
export const jobProblemText = (problem: JobProblem): string => (problem.kind === "service" ? serviceTroubleText(problem.trouble) : problem.reason)
