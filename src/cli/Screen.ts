/** How wide people's text may be: the terminal's width, or 100 columns off a terminal (a pipe, a file). */
export const screenWidth = (): number => {
  const columns = process.stdout.isTTY === true ? process.stdout.columns : undefined
  return columns !== undefined && columns >= 40 ? columns : 100
}
