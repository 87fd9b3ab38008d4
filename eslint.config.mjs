// Lint: eslint-plugin-obsidianmd's recommended config (ESLint core, typescript-eslint
// type-checked, Obsidian rules) over the plugin, the core and the hook bridge.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
  { ignores: ["node_modules/", "main.js", "hook-bridge/dist/", "test-artifacts/", "sample-vault/"] },
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs", "vitest.config.ts"] },
      },
    },
  },
  {
    rules: {
      "obsidianmd/ui/sentence-case": ["warn", { brands: ["Vault Memory", "Claude Code", "Claude", "Obsidian", "Git", "MiniSearch"] }],
    },
  },
  {
    // The core and the bridge run in Node as well as in desktop Obsidian (the plugin is
    // desktop-only because it spawns processes), so Node built-ins are expected there.
    files: ["src/core/**/*.ts", "hook-bridge/**/*.ts", "scripts/**", "test/**"],
    rules: { "obsidianmd/no-nodejs-modules": "off" },
  },
]);
