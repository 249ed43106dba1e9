// The parser ships no types: the shape of its result as its README gives it (values stay text).
declare module "parse-prometheus-text-format" {
  export interface Sample {
    readonly value?: string
    readonly labels?: Readonly<Record<string, string>>
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  export interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  const parse: (text: string) => ReadonlyArray<Family>
  export default parse
}
