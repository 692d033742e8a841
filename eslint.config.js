// Lint: ESLint with typescript-eslint, including rules that need the type checker (promises that are never
// awaited or handled, promises where a boolean or a void callback is expected, needless assertions). Formatting
// is Prettier's (.prettierrc.json); eslint-config-prettier turns off every rule that would disagree with it.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

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
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } } },
  prettier,
);
