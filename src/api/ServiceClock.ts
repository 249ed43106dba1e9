/**
 * A sandbox's declared clock (`X-Sandbox-Clock: virtual; since=R; origin=V; scale=S`: from our real
 * instant R on, its time is V + (t - R) * S). It lets the resend rules find the service's days for our
 * own instants when a rehearsal runs time faster. It only translates times: whether a payout exists is
 * still proven by the listing alone (DESIGN 7). So it is believed only where a lie cannot help
 * anyone: from a service on this machine (loopback: the sandbox we started, sharing our clock), with a
 * scale of at least 1 (our real-time grace then covers at least as much of its time), and while its
 * `Date` header agrees with it. A real service never sends it; one that does, from elsewhere, is
 * treated as any service whose `Date` differs from ours: rule 7 refuses to resend.
 */

/** One straight line of the declared clock. */
export interface ClockLine {
  readonly since: number
  readonly origin: number
  readonly scale: number
}

/** The service's times for our instants, from every line declared so far (a line ends where the clock jumps). */
export interface ServiceTimes {
  /**
   * The earliest service time our instant `ms` can have been (the line in force then, extended over
   * later jumps, which only move forward), or undefined when no line seen started by then.
   */
  readonly earliest: (ms: number) => number | undefined
  /** The latest service time our instant `ms` can have been: at least the truth, whatever jumps we missed. */
  readonly latest: (ms: number) => number
  /** The latest Date header minus the clock's prediction, in our milliseconds (rule 7's skew). */
  readonly skewMs: number
}

const field = (parts: ReadonlyArray<string>, name: string): number => {
  const part = parts.find((p) => p.startsWith(`${name}=`))
  return part === undefined ? NaN : Number(part.slice(name.length + 1))
}

/** The header's line, or undefined when it is absent or not exactly of our form. */
export const parseClockLine = (header: string | undefined): ClockLine | undefined => {
  if (header === undefined) return undefined
  const parts = header.split(";").map((p) => p.trim())
  if (parts[0] !== "virtual") return undefined
  const line = { since: field(parts, "since"), origin: field(parts, "origin"), scale: field(parts, "scale") }
  return Number.isSafeInteger(line.since) && Number.isSafeInteger(line.origin) && Number.isFinite(line.scale) ? line : undefined
}

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|::1)$/i

/**
 * Whether a service at this host (127.0.0.0/8, ::1 or localhost) runs on this machine and so reads
 * the same real clock as we do. A tunnel to the real service may listen there too.
 */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK.test(hostname)

/** The same, of a base URL; a URL that does not parse is not on loopback. */
export const isLoopbackUrl = (baseUrl: string): boolean => URL.canParse(baseUrl) && isLoopbackHost(new URL(baseUrl).hostname)

const at = (line: ClockLine, ms: number) => line.origin + (ms - line.since) * line.scale

/** Lines kept: a rehearsal that advances its clock more often than this loses only its oldest lines. */
const MAX_LINES = 64

/**
 * The client's reading of declared clocks: an immutable value (the client holds it in a Ref), changed
 * by `observeClock` with each answer (our receipt time, its Date and X-Sandbox-Clock); `clockTimes` is
 * defined while the latest answer declared a clock that is believed.
 */
export interface ServiceClock {
  /** Whether the service runs on this machine (loopback): only then is a declared clock believed. */
  readonly trusted: boolean
  /** Every line declared so far, by `since`; at most MAX_LINES. */
  readonly lines: ReadonlyArray<ClockLine>
  /** The latest answer's skew (rule 7) against its line; undefined when it declared none believed. */
  readonly skewMs: number | undefined
  /** The header is the same on every answer until the clock jumps: parsed once per value. */
  readonly header: string | undefined
  readonly line: ClockLine | undefined
}

export const makeServiceClock = (baseUrl: URL): ServiceClock => ({
  trusted: isLoopbackHost(baseUrl.hostname),
  lines: [],
  skewMs: undefined,
  header: undefined,
  line: undefined
})

/** The clock after an answer received at `nowMs` whose Date header says `served`. */
export const observeClock = (clock: ServiceClock, nowMs: number, served: number, header: string | undefined): ServiceClock => {
  const parsed = !clock.trusted || header === clock.header ? clock : { ...clock, header, line: parseClockLine(header) }
  const line = clock.trusted ? parsed.line : undefined
  // Never a line from our future, nor one slower than real time.
  if (line === undefined || !Number.isFinite(served) || line.since > nowMs || line.scale < 1) {
    return parsed.skewMs === undefined ? parsed : { ...parsed, skewMs: undefined }
  }
  const known = parsed.lines.some((l) => l.since === line.since && l.origin === line.origin && l.scale === line.scale)
  const lines = known ? parsed.lines : [...parsed.lines, line].sort((a, b) => a.since - b.since).slice(-MAX_LINES)
  return { ...parsed, lines, skewMs: (served - at(line, nowMs)) / line.scale }
}

/** The service's times for our instants, while the latest answer declared a clock that is believed. */
export const clockTimes = ({ lines, skewMs }: ServiceClock): ServiceTimes | undefined =>
  skewMs === undefined
    ? undefined
    : {
        skewMs,
        earliest: (ms) => {
          const before = lines.filter((l) => l.since <= ms)
          return before.length === 0 ? undefined : Math.min(...before.map((l) => at(l, ms)))
        },
        latest: (ms) => Math.max(...lines.map((l) => at(l, ms)))
      }
