// The folder layout is the architecture (STYLE.md habit 10): these rules keep each floor from reaching
// up. Type-only imports count too: a type from a higher floor is still a dependency on it.
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-is-the-ground",
      comment: "src/domain imports nothing of ours.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^(src|test|scripts)/", pathNot: "^src/domain/" }
    },
    {
      name: "api-and-store-stay-low",
      comment: "src/api and src/store never import the pipeline, the jobs, the CLI or the sandbox.",
      severity: "error",
      from: { path: "^src/(api|store)/" },
      to: { path: "^src/(intake|run|output|jobs|cli|sandbox)/" }
    },
    {
      name: "cli-is-the-top",
      comment: "Nothing in src outside src/cli imports src/cli (tests may).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: "^src/cli/" }
    },
    {
      name: "console-below-cli",
      comment: "src/console (the web console) runs the run's and the jobs' own operations; it never imports the CLI or the sandbox.",
      severity: "error",
      from: { path: "^src/console/" },
      to: { path: "^src/(cli|sandbox)/" }
    },
    {
      name: "lower-floors-not-to-console",
      comment: "The console is a top floor beside the CLI: nothing below imports it.",
      severity: "error",
      from: { path: "^src/(domain|api|store|intake|output|run|jobs|notify|observe|sandbox)/" },
      to: { path: "^src/console/" }
    },
    {
      name: "sandbox-only-from-cli-tests-scripts",
      comment: "Only src/cli, test/ and scripts/ import src/sandbox.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(cli|sandbox)/" },
      to: { path: "^src/sandbox/" }
    },
    {
      name: "sandbox-uses-only-api-and-domain",
      comment: "src/sandbox imports only src/api, src/domain and npm packages.",
      severity: "error",
      from: { path: "^src/sandbox/" },
      to: { path: "^(src|test|scripts)/", pathNot: "^src/(sandbox|api|domain)/" }
    },
    {
      name: "intake-below-run-output-jobs",
      comment: "src/intake does not import src/run, src/output or src/jobs.",
      severity: "error",
      from: { path: "^src/intake/" },
      to: { path: "^src/(run|output|jobs)/" }
    },
    {
      name: "output-below-run-jobs",
      comment: "src/output does not import src/run or src/jobs.",
      severity: "error",
      from: { path: "^src/output/" },
      to: { path: "^src/(run|jobs)/" }
    },
    {
      name: "run-below-jobs",
      comment: "src/run does not import src/jobs.",
      severity: "error",
      from: { path: "^src/run/" },
      to: { path: "^src/jobs/" }
    },
    {
      name: "notify-stays-low",
      comment: "src/notify (--notify) is told what happened; it never reaches into the pipeline, the jobs, the CLI or the store.",
      severity: "error",
      from: { path: "^src/notify/" },
      to: { path: "^src/(intake|run|output|jobs|cli|sandbox|store)/" }
    },
    {
      name: "observe-stays-low",
      comment: "src/observe (metrics, traces) is used by the API client, so it imports only src/domain and src/store of ours.",
      severity: "error",
      from: { path: "^src/observe/" },
      to: { path: "^(src|test|scripts)/", pathNot: "^src/(observe|domain|store)/" }
    },
    {
      name: "src-not-from-tests-or-scripts",
      comment: "Fixtures and helpers live under test/ and scripts/ and never leak into src.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|scripts)/" }
    },
    {
      name: "no-circular",
      comment: "No cycles between modules.",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    {
      name: "not-to-unresolvable",
      comment: "Every import resolves to a file or an installed package.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    },
    {
      name: "no-non-package-json",
      comment: "Every npm package imported is declared in package.json.",
      severity: "error",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] }
    },
    {
      name: "src-not-to-dev-dep",
      comment: "src runs without devDependencies (type-only imports excepted).",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"], pathNot: "node_modules/@types/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"]
    },
    skipAnalysisNotInRules: true
  }
}
