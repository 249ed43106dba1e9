/**
 * The console's one stylesheet, served at /assets/console.css (no CDN, nothing to build): readable at
 * 1280 px and on a phone (tables scroll in their own region), visible focus, contrast above 4.5:1.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5560; --line: #c9d1d9; --accent: #0b5cad; --bad: #a4161a; --good: #1e6b34; --bg: #fff; --soft: #f3f5f7; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, [tabindex]:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 1; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; justify-content: space-between; padding: .5rem 1rem; border-bottom: 1px solid var(--line); background: var(--soft); }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a { display: inline-block; padding: .4rem .2rem; font-weight: 600; text-decoration: none; }
nav a[aria-current="page"] { border-bottom: 3px solid var(--accent); }
.who { display: flex; gap: .5rem; align-items: center; margin: 0; }
main { max-width: 1400px; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
section { margin-bottom: 1.5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; color: var(--muted); }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--soft); white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; }
.id { font-family: ui-monospace, monospace; font-size: .85em; color: var(--muted); }
.state { font-weight: 600; }
.state-running { color: var(--accent); }
.state-paused { color: var(--bad); }
.state-done { color: var(--good); }
progress { width: 8rem; vertical-align: middle; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.counts { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; padding: 0; }
.events { font-size: .95em; }
.refused { color: var(--bad); font-weight: 600; }
.done { color: var(--good); font-weight: 600; }
form p { margin: .5rem 0; }
label { font-weight: 600; margin-right: .25rem; }
input, select, button { font: inherit; padding: .4rem .6rem; border: 1px solid #6b7680; border-radius: 4px; min-height: 2.5rem; }
input[type="text"], input[type="password"], input[type="search"] { max-width: 100%; width: 22rem; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; font-weight: 600; }
.filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.sign-in { max-width: 26rem; }
.sign-in label { display: block; }
@media (max-width: 640px) {
  body { font-size: 15px; }
  main { padding: .75rem; }
  header { padding: .5rem .75rem; }
  input[type="text"], input[type="password"], input[type="search"] { width: 100%; }
  dl { grid-template-columns: 1fr; }
}
`
