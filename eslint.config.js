// Lint rules: typescript-eslint's recommended set plus the project's boundaries.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "data/**",
      "node_modules/**",
      "src/generated/**",
      "coverage/**",
      "src/playground/web/**/*.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        Buffer: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through src/config only." },
      ],
    },
  },
  {
    files: [
      "src/config/**",
      "test/**",
      "bench/**",
      "scripts/**",
      "*.config.ts",
      "*.config.js",
      "prisma.config.ts",
    ],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: [
      "src/market/**",
      "src/sandbox/**",
      "src/db/**",
      "src/runtime/**",
      "src/outbox/**",
      "src/feed/**",
      "src/watch/**",
      "src/accountPollers/**",
      "src/trading/**",
      "src/accounts/**",
      "src/privacy/**",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "discord.js", message: "Domain, market and db code never import discord.js." }] },
      ],
    },
  },
);
