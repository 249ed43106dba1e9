// Modelled on Effect-TS/examples templates/cli/eslint.config.mjs. Its formatter (@effect/dprint) is
// replaced by @stylistic's rules, fixed by `npm run format` (eslint --fix) and checked by `npm test`.
import js from "@eslint/js"
import stylistic from "@stylistic/eslint-plugin"
import { defineConfig } from "eslint/config"
import tseslint from "typescript-eslint"

const processEnv = {
  object: "process",
  property: "env",
  message: "Read settings through Config (STYLE.md habit 3)."
}

const printing = {
  "no-console": "error",
  "no-restricted-properties": [
    "error",
    processEnv,
    ...["stdout", "stderr"].map((property) => ({
      object: "process",
      property,
      message: "Only src/cli prints: emit an event and let the CLI render it (STYLE.md habit 12)."
    }))
  ],
  "no-restricted-imports": [
    "error",
    {
      paths: [{
        name: "effect",
        importNames: ["Console"],
        message: "Only src/cli prints: emit an event and let the CLI render it (STYLE.md habit 12)."
      }, {
        name: "effect/Console",
        message: "Only src/cli prints: emit an event and let the CLI render it (STYLE.md habit 12)."
      }]
    }
  ]
}

export default defineConfig(
  {
    ignores: ["**/node_modules", "**/dist", "**/build", "docs", "bench/results", "test-output", "jobs", "**/*.md"]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // The house format: no semicolons, double quotes, no trailing commas, two-space blocks.
    plugins: { "@stylistic": stylistic },
    rules: {
      "@stylistic/semi": ["error", "never"],
      "@stylistic/quotes": ["error", "double", { avoidEscape: true, allowTemplateLiterals: "always" }],
      "@stylistic/comma-dangle": ["error", "never"],
      "@stylistic/comma-spacing": "error",
      "@stylistic/key-spacing": "error",
      "@stylistic/keyword-spacing": "error",
      "@stylistic/space-infix-ops": "error",
      "@stylistic/space-before-blocks": "error",
      "@stylistic/object-curly-spacing": ["error", "always"],
      "@stylistic/array-bracket-spacing": ["error", "never"],
      "@stylistic/arrow-spacing": "error",
      "@stylistic/arrow-parens": ["error", "always"],
      "@stylistic/block-spacing": "error",
      "@stylistic/brace-style": ["error", "1tbs", { allowSingleLine: true }],
      "@stylistic/member-delimiter-style": ["error", { multiline: { delimiter: "none" }, singleline: { delimiter: "semi", requireLast: false } }],
      "@stylistic/type-annotation-spacing": "error",
      "@stylistic/no-trailing-spaces": "error",
      "@stylistic/eol-last": "error",
      "@stylistic/no-multiple-empty-lines": ["error", { max: 1, maxBOF: 0, maxEOF: 0 }],
      "@stylistic/no-mixed-spaces-and-tabs": "error",
      "@stylistic/no-tabs": "error",
      "@stylistic/indent-binary-ops": ["error", 2],
      "@stylistic/semi-spacing": "error",
      "@stylistic/space-in-parens": "error",
      "@stylistic/template-curly-spacing": "error"
    }
  },
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname
      }
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error"
    },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "no-unused-vars": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true
        }
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { disallowTypeAnnotations: false }],
      "@typescript-eslint/no-import-type-side-effects": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error"
    }
  },
  {
    name: "house rules (STYLE.md)",
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-properties": ["error", processEnv],
      "no-restricted-globals": [
        "error",
        ...["setTimeout", "setInterval", "setImmediate"].map((name) => ({
          name,
          message: "Use Effect's Schedule, Clock and sleep so TestClock can drive it (STYLE.md habit 5)."
        }))
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "ThrowStatement",
          message: "Fail with a typed error instead of throwing (STYLE.md habit 3)."
        },
        {
          selector: "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
          message: "No casts to silence types."
        },
        {
          selector: "MemberExpression[property.name=/^run(Promise|Sync|Fork|Callback)(Exit)?$/]",
          message: "Run effects only in the entry points (STYLE.md habit 7)."
        }
      ]
    }
  },
  {
    name: "only src/cli prints",
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**"],
    rules: printing
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off"
    }
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        module: "writable",
        require: "readonly"
      }
    }
  },
  {
    // bin/payouts.js is CommonJS too (bin/package.json): a start then needs no ES module loader.
    files: ["**/*.cjs", "bin/payouts.js"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  }
)
