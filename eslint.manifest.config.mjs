// The community directory's checks on manifest.json, run on their own: the rule reads the
// manifest as a JavaScript object, which the main config's type-checked setup cannot parse.
import tseslint from "typescript-eslint";
import obsidianmd from "eslint-plugin-obsidianmd";

export default [
  {
    files: ["manifest.json"],
    languageOptions: { parser: tseslint.parser },
    plugins: { obsidianmd },
    rules: { "obsidianmd/validate-manifest": "error" },
  },
];
