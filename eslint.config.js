// Lint: ESLint with typescript-eslint, including rules that need the type checker (promises that are never
// awaited or handled, promises where a boolean or a void callback is expected, needless assertions). Formatting
// is Prettier's (.prettierrc.json); eslint-config-prettier turns off every rule that would disagree with it.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

const INTAKE = "An intake rule: screen the candidates through services/acceptance/ (a new rule is a stage there).";

export default tseslint.config(
  {
    ignores: [
      "generated/**",
      "dist/**",
      "dashboard/dist/**",
      "client/dist/**",
      "bench/results/**",
      "bench/charts/**",
      ".data/**",
      ".test-data/**",
      ".scratch/**",
      "test-results/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // A module's index names what it offers (docs/ARCHITECTURE.md, "Modules"): no `export *`.
    files: ["server/**/index.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "ExportAllDeclaration", message: "Name what the module offers: export { … } from, not export *." },
      ],
    },
  },
  {
    // Every intake rule is a stage of services/acceptance/ (docs/ARCHITECTURE.md, "Where a new intake rule goes"):
    // a door screens its candidates there, never calls the rules' queries itself. A sender pool's own senders
    // (routing/senderPools.ts) are checked as the pool is made, not a message's intake.
    files: ["server/**/*.ts"],
    ignores: ["server/services/acceptance/**", "server/db/**", "server/billing/**", "server/routing/senderPools.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/db/optOuts.js"], importNames: ["optedOutAmong"], message: INTAKE },
            { group: ["**/db/numbers.js"], importNames: ["heldAmong"], message: INTAKE },
            { group: ["**/operator/index.js"], importNames: ["chargeQuota", "countsQuota"], message: INTAKE },
            { group: ["**/billing/index.js"], importNames: ["priceBookFor", "cachedPriceBook", "priceOf"], message: INTAKE },
          ],
        },
      ],
    },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } } },
  prettier,
);
