// Turns the ES modules esbuild writes into dist/ into function bodies that dist/load.cjs compiles with
// a V8 code cache made at build time (Node 20 caches no ES module's code: a start spent ~85 ms
// compiling the command tree's chunks). esbuild writes them without whitespace, so a statement may
// share its line with the rest of the chunk: the module syntax is therefore blanked where it stands
// (spaces, line breaks kept) and said again on a first line of its own and a last one, so every
// other line and column is where esbuild put it, one line down (codeCache.mjs moves the source
// maps' lines down by one to match):
//   import { a as b } from "./x.js"   ->  const { a: b } = $$need("./x.js")   (on the first line)
//   import * as ns from "node:fs"     ->  const ns = $$need("node:fs")         (on the first line)
//   export { b as c }                 ->  $$export({ c: b })   (on the last line: the module has run)
//   import("./y.js")                  ->  $$load("./y.js")     (in place, same length)
//   import.meta                       ->  $importMeta          (in place, same length)
// Imports first is where an ES module runs them too (they are hoisted).
// An import copies the binding once its module has run, where ES modules share a live one: the
// build fails on an exported binding that is assigned after its module has run (checkSettled).
import { parse } from "acorn"
import { analyze } from "eslint-scope"

const nameOf = (node) => (node.type === "Literal" ? node.value : node.name)

/** `{ a: b, c }`: a destructuring or object literal of `[key, binding]` pairs. */
const pairs = (list) => `{ ${list.map(([key, binding]) => (key === binding ? key : `${/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(key) ? key : JSON.stringify(key)}: ${binding}`)).join(", ")} }`

/** `node`'s text as spaces, its line breaks kept: its lines and the columns after it stay. */
const blank = (code, node) => code.slice(node.start, node.end).replace(/[^\n]/g, " ")

const importOf = (file, node) => {
  const from = JSON.stringify(node.source.value)
  if (!node.source.value.startsWith("./") && !node.source.value.startsWith("node:")) {
    throw new Error(`${file}: imports ${node.source.value}, a package: dist/load.cjs loads only chunks and node: modules`)
  }
  if (node.specifiers.length === 0) return `$$need(${from});`
  const namespace = node.specifiers.find((s) => s.type === "ImportNamespaceSpecifier")
  if (namespace !== undefined) return `const ${namespace.local.name} = $$need(${from});`
  if (node.specifiers.some((s) => s.type !== "ImportSpecifier")) throw new Error(`${file}: a default import, which esbuild does not write`)
  return `const ${pairs(node.specifiers.map((s) => [nameOf(s.imported), s.local.name]))} = $$need(${from});`
}

const exportOf = (file, node) => {
  if (node.type !== "ExportNamedDeclaration" || node.source !== null || node.declaration !== null) {
    throw new Error(`${file}: an export of a form esbuild does not write for chunks (${node.type})`)
  }
  return `$$export(${pairs(node.specifiers.map((s) => [nameOf(s.exported), s.local.name]))});`
}

/**
 * Fails when a binding the module exports is assigned inside a function (which may run after the
 * module has, when importers hold their copies); assignments while the module runs are fine.
 */
const checkSettled = (file, ast, exported) => {
  // The module's own scope (inside the global one), where its top-level bindings are.
  const scope = analyze(ast, { ecmaVersion: 2022, sourceType: "module" }).acquire(ast, true)
  if (scope?.type !== "module") throw new Error(`${file}: no module scope found`)
  for (const variable of scope.variables) {
    if (!exported.has(variable.name)) continue
    const late = variable.references.find((r) => r.isWrite() && !r.init && r.from.variableScope !== scope)
    if (late !== undefined) throw new Error(`${file}: exports ${variable.name}, which is assigned after the module has run (line ${late.identifier.loc.start.line}): scripts/bundle/bodies.mjs copies exports once`)
  }
}

/** The body of the ES module `code` (written as `file`, named in errors). */
export const toBody = (file, code) => {
  const ast = parse(code, { ecmaVersion: "latest", sourceType: "module", locations: true, ranges: true })
  const edits = []
  const exported = new Set()
  const first = []
  const last = []
  for (const node of ast.body) {
    if (node.type === "ImportDeclaration") {
      first.push(importOf(file, node))
      edits.push([node.start, node.end, blank(code, node)])
    }
    if (node.type.startsWith("Export")) {
      last.push(exportOf(file, node))
      edits.push([node.start, node.end, blank(code, node)])
      for (const s of node.specifiers) exported.add(s.local.name)
    }
  }
  checkSettled(file, ast, exported)
  // import(...) and import.meta anywhere: found by walking every node (acorn has no walker of its own).
  const visit = (node) => {
    if (node.type === "ImportExpression") edits.push([node.start, node.start + "import".length, "$$load"])
    if (node.type === "MetaProperty" && node.meta.name === "import") edits.push([node.start, node.end, "$importMeta"])
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach((v) => v !== null && typeof v?.type === "string" && visit(v))
      else if (value !== null && typeof value?.type === "string") visit(value)
    }
  }
  visit(ast)
  edits.sort((a, b) => a[0] - b[0])
  const pieces = []
  let at = 0
  for (const [start, end, text] of edits) {
    pieces.push(code.slice(at, start), text)
    at = end
  }
  pieces.push(code.slice(at))
  return `${first.join(" ")}\n${pieces.join("")}\n${last.join(" ")}`
}

/** A chunk's source map for its body: every generated line one down (the body's first line is new). */
export const bodyMap = (map) => {
  const parsed = JSON.parse(map)
  return JSON.stringify({ ...parsed, mappings: `;${parsed.mappings}` })
}
