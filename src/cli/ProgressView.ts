/**
 * The run's progress figures as text: a bar for the phase under way on a terminal, a plain
 * `progress:` line elsewhere. Both say the same thing: the phase, its count, rate and ETA, the
 * outcomes so far (failed and cancelled apart, as the run's end counts them) and the time elapsed.
 */
import type { Format } from "../output/Format.ts"
import type { ProgressFigures } from "../run/Notices.ts"

/** 18s, 2m05s, 1h02m: what a person reads at a glance. */
export const shortDuration = (ms: number): string => {
  // Rounded up: an ETA of 0.2 s left reads "1s", never "0s" while a row is still on its way.
  const s = Math.max(0, Math.ceil(ms / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

/** 0:25, 12:05, 1:02:03: a clock of the run. */
export const clock = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000))
  const mm = String(Math.floor((s % 3600) / 60))
  const ss = String(s % 60).padStart(2, "0")
  return s < 3600 ? `${mm}:${ss}` : `${Math.floor(s / 3600)}:${mm.padStart(2, "0")}:${ss}`
}

const rateText = (p: ProgressFigures) => `${p.rate.toFixed(1)}/s`
const etaText = (p: ProgressFigures) => (p.etaMs === undefined ? (p.done >= p.of ? "eta 0s" : "eta --") : `eta ${shortDuration(p.etaMs)}`)
const countOf = (p: ProgressFigures, f: Format) => `${f.count(p.done)}/${f.count(p.of)}${p.phase === "tracking" ? " final" : ""}`

/** Off a terminal: every figure, always in the same order, so a log can be grepped and compared. */
export const plainProgress = (p: ProgressFigures, f: Format): string =>
  [
    `${p.phase} ${countOf(p, f)} (${rateText(p)}, ${etaText(p)})`,
    `completed ${f.count(p.completed)}`,
    `failed ${f.count(p.failed)}`,
    `cancelled ${f.count(p.cancelled)}`,
    `expired ${f.count(p.expired)}`,
    ...(p.refunded > 0 ? [`refunded ${f.count(p.refunded)}`] : []),
    `pending ${f.count(p.pending)}`,
    `unknown ${f.count(p.unknown)}`,
    `skipped ${f.count(p.skipped)}`,
    `elapsed ${shortDuration(p.elapsedMs)}`
  ].join(" | ")

const bar = (done: number, of: number, width: number) => {
  const filled = of <= 0 ? width : Math.min(width, Math.floor((done / of) * width))
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`
}

/**
 * On a terminal: two lines, the phase's bar, count, rate, ETA and the time elapsed, then the outcomes
 * so far. Each fits the terminal's width (a wrapped line could not be redrawn in place). The zero
 * outcomes besides failed and cancelled are left out.
 */
export const liveProgress = (p: ProgressFigures, f: Format, columns: number): ReadonlyArray<string> => {
  const fit = (line: string) => (line.length > columns - 1 ? `${line.slice(0, Math.max(0, columns - 2))}…` : line)
  const outcomes = [
    `${f.count(p.completed)} completed`,
    `${f.count(p.failed)} failed`,
    `${f.count(p.cancelled)} cancelled`,
    ...(p.expired > 0 ? [`${f.count(p.expired)} expired`] : []),
    ...(p.refunded > 0 ? [`${f.count(p.refunded)} refunded`] : []),
    `${f.count(p.pending)} pending`,
    ...(p.unknown > 0 ? [`${f.count(p.unknown)} unknown`] : []),
    ...(p.skipped > 0 ? [`${f.count(p.skipped)} skipped`] : [])
  ].join(", ")
  const head = p.phase === "submitting" ? "submitting " : "tracking   "
  const tail = ` ${countOf(p, f)}  ${rateText(p)}  ${etaText(p)}  elapsed ${clock(p.elapsedMs)}`
  const room = columns - 1 - head.length - tail.length - 2
  return [fit(`${head}${bar(p.done, p.of, Math.max(10, Math.min(30, room)))}${tail}`), fit(`           ${outcomes}`)]
}
