/** The exposition text read with a real parser of the format (parse-prometheus-text-format). */
import parse from "parse-prometheus-text-format"

/** The series of the family `name` whose labels include `labels`. */
export const series = (text: string, name: string, labels: Readonly<Record<string, string>> = {}) =>
  (parse(text).find((f) => f.name === name)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))

/**
 * One histogram series, parsed: its buckets by bound (ascending), count and sum. The parser merges
 * a histogram's label sets into one and keeps _sum and _count only without labels, so the series'
 * own lines are handed to it alone, with its `endpoint` label taken off.
 */
export const histogramOf = (text: string, name: string, endpoint: string) => {
  const label = `endpoint="${endpoint}"`
  const lines = text.split("\n").filter((l) => l.startsWith(`# HELP ${name} `) || l.startsWith(`# TYPE ${name} `) || (l.startsWith(`${name}_`) && l.includes(label)))
  const alone = lines.map((l) => l.replace(`{${label}}`, "").replace(`${label},`, "")).join("\n")
  const [family] = parse(`${alone}\n`)
  const [sample] = family.metrics
  const buckets = Object.entries(sample.buckets ?? {}).map(([le, n]) => [le === "+Inf" ? Infinity : Number(le), Number(n)] as const).sort((a, b) => a[0] - b[0])
  return { type: family.type, buckets, count: Number(sample.count), sum: Number(sample.sum) }
}
