/**
 * The exposition text read back by Prometheus's own parser of the format: the official Python
 * client's (`prometheus_client.parser`, Debian's python3-prometheus-client, installed by .ci/run).
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"

const PYTHON = "/usr/bin/python3"
const SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
print(json.dumps([{"name": f.name, "type": f.type, "help": f.documentation,
  "samples": [{"name": s.name, "labels": s.labels, "value": repr(float(s.value))} for s in f.samples]}
  for f in text_string_to_metric_families(sys.stdin.read())]))
`

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  /** "counter", "gauge", "histogram", ...; a counter's family is named without its `_total`. */
  readonly type: string
  readonly help: string
  readonly samples: ReadonlyArray<Sample>
}

/** Every family of the text; throws with the parser's words when the text is not the format. */
export const families = (text: string): ReadonlyArray<Family> => {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} not found: install python3-prometheus-client (apt-get install -y python3-prometheus-client); this test does not skip.`)
  const parsed = spawnSync(PYTHON, ["-c", SCRIPT], { input: text, encoding: "utf8" })
  if (parsed.status !== 0) throw new Error(`Prometheus's parser refused the text: ${parsed.stderr}`)
  const raw = JSON.parse(parsed.stdout) as ReadonlyArray<Omit<Family, "samples"> & { samples: ReadonlyArray<Omit<Sample, "value"> & { value: string }> }>
  return raw.map((f) => ({ ...f, samples: f.samples.map((s) => ({ ...s, value: s.value === "inf" ? Infinity : Number(s.value) })) }))
}

/** The type of the family a metric (by its name as written, `_total` included) belongs to. */
export const typeOf = (text: string, name: string) => families(text).find((f) => f.name === name || `${f.name}_total` === name)?.type

/** The samples named `name` whose labels include `labels`. */
export const series = (text: string, name: string, labels: Readonly<Record<string, string>> = {}) =>
  families(text).flatMap((f) => f.samples).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

/** One histogram series: its buckets by bound (ascending), count and sum. */
export const histogramOf = (text: string, name: string, endpoint: string) => {
  const all = families(text)
  const family = all.find((f) => f.name === name)
  const mine = (family?.samples ?? []).filter((s) => s.labels.endpoint === endpoint)
  const buckets = mine.filter((s) => s.name === `${name}_bucket`).map((s) => [s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), s.value] as const).sort((a, b) => a[0] - b[0])
  const one = (suffix: string) => mine.find((s) => s.name === `${name}${suffix}`)?.value ?? NaN
  return { type: family?.type, buckets, count: one("_count"), sum: one("_sum") }
}
