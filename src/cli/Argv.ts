/** The raw command line as the CLI reads it before @effect/cli parses it. */

/** The words before `--`: after it every word is an argument, never an option. */
export const optionWords = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const end = argv.indexOf("--")
  return end === -1 ? argv : argv.slice(0, end)
}

/** `--utc` is the program's, for every command: taken out of the words before `--`, and whether it was there. */
export const takeUtc = (argv: ReadonlyArray<string>): { readonly utc: boolean; readonly rest: ReadonlyArray<string> } => {
  const before = optionWords(argv)
  if (!before.includes("--utc")) return { utc: false, rest: argv }
  return { utc: true, rest: [...before.filter((arg) => arg !== "--utc"), ...argv.slice(before.length)] }
}
