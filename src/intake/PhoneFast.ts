/**
 * `normaliseMobile`'s answer for a number it accepts, cheaper: the same parse (libphonenumber-js/max),
 * then the number's type found as libphonenumber's `getNumberType` finds it, from the same metadata,
 * but with each pattern compiled once and each numbering plan read once (getType made a Metadata, a
 * numbering plan and a RegExp per pattern for every number: a quarter of the phone check). Undefined
 * whenever `normaliseMobile` would refuse the number, which alone words why.
 * The characters and the mobile types are src/domain/Phone.ts's; test/intake/FastPaths.test.ts compares the two checks.
 */
import { Metadata, parsePhoneNumberFromString } from "libphonenumber-js/max"
import metadataJson from "libphonenumber-js/max/metadata"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import type { Country } from "../domain/Operators.ts"
import { MOBILE_TYPES, PHONE_CHARACTERS } from "../domain/Phone.ts"

const NON_FIXED_LINE_TYPES = ["MOBILE", "PREMIUM_RATE", "TOLL_FREE", "SHARED_COST", "VOIP", "PERSONAL_NUMBER", "PAGER", "UAN", "VOICEMAIL"] as const

interface TypePattern {
  readonly pattern: RegExp | undefined
  /** As the metadata has it: "" for a mobile pattern folded into the fixed-line one. */
  readonly source: string
  readonly lengths: ReadonlyArray<number> | undefined
}

interface Plan {
  readonly national: RegExp
  readonly types: ReadonlyMap<string, TypePattern>
}

interface MetadataType {
  pattern: () => string
  possibleLengths: () => ReadonlyArray<number> | undefined
}

interface NumberingMetadata {
  selectNumberingPlan: (key: string) => void
  nationalNumberPattern: () => string
  type: (type: string) => MetadataType | undefined
}

const entirely = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`)

/** The methods getNumberType reads, which libphonenumber's types do not declare. */
const readsPlans = (metadata: object): metadata is NumberingMetadata => "nationalNumberPattern" in metadata && "type" in metadata

const plans = new Map<string, Plan>()

/** Undefined if this libphonenumber's metadata does not read as expected: every number then goes to `normaliseMobile`. */
const planOf = (key: string): Plan | undefined => {
  let plan = plans.get(key)
  if (plan === undefined) {
    const metadata = new Metadata()
    if (!readsPlans(metadata)) return undefined
    metadata.selectNumberingPlan(key)
    const types = new Map<string, TypePattern>()
    for (const name of ["FIXED_LINE", ...NON_FIXED_LINE_TYPES]) {
      const type = metadata.type(name)
      if (type === undefined) continue
      const source = type.pattern()
      types.set(name, { pattern: source ? entirely(source) : undefined, source, lengths: type.possibleLengths() })
    }
    plan = { national: entirely(metadata.nationalNumberPattern()), types }
    plans.set(key, plan)
  }
  return plan
}

const isType = (nationalNumber: string, name: string, plan: Plan): boolean => {
  const type = plan.types.get(name)
  if (type?.pattern === undefined) return false
  if (type.lengths && !type.lengths.includes(nationalNumber.length)) return false
  return type.pattern.test(nationalNumber)
}

const UNKNOWN = "UNKNOWN"

/** libphonenumber's `getNumberType` (helpers/getNumberType.js) of a parsed number. */
const numberType = (country: string | undefined, callingCode: string, nationalNumber: string): string | undefined => {
  if (!country && !callingCode) return undefined
  const plan = planOf(country || callingCode)
  if (plan === undefined) return UNKNOWN
  if (!plan.national.test(nationalNumber || "")) return undefined
  if (isType(nationalNumber, "FIXED_LINE", plan)) {
    const mobile = plan.types.get("MOBILE")
    if (mobile === undefined || mobile.source === "") return "FIXED_LINE_OR_MOBILE"
    return isType(nationalNumber, "MOBILE", plan) ? "FIXED_LINE_OR_MOBILE" : "FIXED_LINE"
  }
  for (const name of NON_FIXED_LINE_TYPES) if (isType(nationalNumber, name, plan)) return name
  return undefined
}

interface Parsed {
  readonly country?: string | undefined
  readonly countryCallingCode: string
  readonly nationalNumber: string
  readonly number: string
}

const isParsed = (u: unknown): u is Parsed =>
  typeof u === "object" && u !== null && "countryCallingCode" in u && "nationalNumber" in u && "number" in u &&
  typeof u.countryCallingCode === "string" && typeof u.nationalNumber === "string" && typeof u.number === "string"

type Parse = (text: string, country: Country) => Parsed | undefined

/**
 * libphonenumber's own `parse`, called as `parsePhoneNumberFromString(text, country)` calls it once its
 * wrappers are done: `parse(text, { defaultCountry, v2: true }, metadata)`, a ParseError meaning no
 * number. The wrappers (arguments sliced, options copied three times by Babel's object spread, the
 * country looked up again) cost as much as the parse (2.3 against 4.1 us a number). The package does
 * not export it, so it is required from its CommonJS build by path (the same code as the ES one); if
 * that ever fails, the public function is used. Any error is "no number" here: `normaliseMobile`,
 * which then checks the row, meets a real one on its own.
 */
const internalParse = (): Parse | undefined => {
  try {
    const require = createRequire(import.meta.url)
    const root = dirname(require.resolve("libphonenumber-js/package.json"))
    const parse: unknown = require(join(root, "build", "parse.js"))?.default
    if (typeof parse !== "function") return undefined
    const options = new Map<string, { readonly defaultCountry: string; readonly v2: true }>()
    return (text, country) => {
      let given = options.get(country)
      if (given === undefined) options.set(country, given = { defaultCountry: country, v2: true })
      try {
        const parsed: unknown = parse(text, given, metadataJson)
        return isParsed(parsed) ? parsed : undefined
      } catch {
        // A ParseError: not a number. Anything else, normaliseMobile meets again on its own parse.
        return undefined
      }
    }
  } catch {
    return undefined
  }
}

// Found on first use: loading the CommonJS build costs a start that checks no number this way (a
// small file, or one refused at intake, is checked by normaliseMobile alone).
let chosenParse: Parse | undefined
const parseNumber: Parse = (text, country) => {
  chosenParse ??= internalParse() ?? ((t, c) => parsePhoneNumberFromString(t, c))
  return chosenParse(text, country)
}

/** The E.164 number where `normaliseMobile(raw, country)` gives one, else undefined. */
export const mobileE164 = (raw: string, country: Country): string | undefined => {
  const text = raw.trim()
  if (text === "" || !PHONE_CHARACTERS.test(text)) return undefined
  const parsed = parseNumber(text, country)
  if (parsed === undefined || (parsed.country !== undefined && parsed.country !== country)) return undefined
  const type = numberType(parsed.country, parsed.countryCallingCode, parsed.nationalNumber)
  return type !== undefined && MOBILE_TYPES.has(type) ? parsed.number : undefined
}
