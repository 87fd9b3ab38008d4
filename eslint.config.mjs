// Lint: eslint-plugin-obsidianmd's recommended config (ESLint core, typescript-eslint
// type-checked, Obsidian rules) over the plugin, the core and the hook bridge, and the import
// table of docs/architecture.md (roomRules, below).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "eslint/config";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import obsidianmd from "eslint-plugin-obsidianmd";

// The import table of docs/architecture.md ("Rooms and what each may import") as lint rules;
// test/lint/import-table.test.ts checks that an import against it fails `npm run lint`. Change
// the table here and in the document together.
const ROOT = dirname(fileURLToPath(import.meta.url));

// A room is a folder or a file of src/core, named from there; a row for a file inside a folder
// ("recall/similar-meaning.ts") overrides its folder's row for that file. A room may import its
// own files and the rooms listed, nothing else of src/core.
const BELOW = {
  io: [],
  text: [],
  "paths.ts": [],
  "session-id.ts": [],
  "version.ts": [],
  // The one settings reader (zod/mini); every room's settings.ts declares its keys with it.
  "settings-schema.ts": [],
  "project.ts": ["io"],
  "machine-config.ts": ["io"],
  card: ["io", "text"],
  privacy: ["text"],
  vault: ["card", "io"],
  index: ["card", "io", "text", "vault"],
  // Only the recall rules' types, which the snapshot's header carries.
  snapshot: ["card", "index", "io", "paths.ts", "text", "vault", "recall/rules.ts"],
  embed: ["card", "io", "machine-config.ts", "paths.ts", "privacy", "snapshot", "text", "vault"],
  // The prompt hook's recall code does not carry the vectors' reader: only similar-meaning.ts
  // reaches embed/ and the snapshot.
  recall: ["card", "embed", "index", "io", "paths.ts", "session-id.ts", "text"],
  "recall/similar-meaning.ts": ["card", "embed", "index", "io", "paths.ts", "privacy", "session-id.ts", "snapshot", "text"],
  transcript: ["io", "privacy", "session-id.ts"],
  queue: ["card", "io", "paths.ts", "privacy", "project.ts", "session-id.ts", "text", "transcript"],
  llm: ["io", "privacy"],
};
// Each room's settings.ts declares its keys through the one settings reader.
for (const room of Object.keys(BELOW)) if (BELOW[room].length > 0) BELOW[room].push("settings-schema.ts");
// The loader of every room's settings: every room above, and of the tools (below, which take a
// whole config) only the files that hold their settings.
BELOW["config.ts"] = [
  ...Object.keys(BELOW),
  "digest/settings.ts",
  "digest/schedule.ts",
  "enrich/settings.ts",
  "lint/settings.ts",
  "lint/types.ts",
  "sync/settings.ts",
];
const BELOW_TOOLS = Object.keys(BELOW);
const ROOMS = {
  ...BELOW,
  // The write path and tools: every room above, and the tools named.
  lint: BELOW_TOOLS,
  enrich: BELOW_TOOLS,
  digest: [...BELOW_TOOLS, "enrich", "lint"],
  install: [...BELOW_TOOLS, "digest"],
  // Sync reads the digest's pages' markers and its bound on deletions.
  sync: [...BELOW_TOOLS, "digest"],
};

// The packages src/core may import besides node:*: gray-matter reads frontmatter (card/card.ts),
// zod is for the settings' schemas, and diff shows install's change to settings.json.
const CORE_PACKAGES = ["gray-matter", "zod", "diff"];
// And the hook bridge's: the MCP server's SDK, and zod for its tools' arguments.
const BRIDGE_PACKAGES = ["@modelcontextprotocol/sdk", "zod"];
// nodemailer only in the mail sender's own bundle (hook-bridge/src/mail), which no hook loads.
const MAIL_FILES = ["hook-bridge/src/mail/**/*.ts"];
const MAIL_PACKAGES = [...BRIDGE_PACKAGES, "nodemailer"];

const SOURCES = ["src/**/*.ts", "hook-bridge/**/*.ts"];
const isFolder = (room) => !room.endsWith(".ts");
const filesOf = (room) => (isFolder(room) ? `src/core/${room}/**/*.ts` : `src/core/${room}`);
const ownFolder = (room) => (room.includes("/") ? room.slice(0, room.indexOf("/")) : room);
const OUTSIDE_CORE = {
  target: ".",
  from: ["./src/plugin", "./hook-bridge"],
  message: "src/core imports neither the plugin nor the hook bridge (docs/architecture.md).",
};

function restrictedPaths(room, allowed) {
  const listed = allowed.length ? allowed.join(", ") : "nothing of ours";
  const zones = [
    {
      target: ".",
      from: "./src/core",
      except: [...new Set([ownFolder(room), ...allowed])].map((r) => `./${r}`),
      message: `src/core/${room} may import ${listed} (docs/architecture.md, "Rooms and what each may import").`,
    },
    OUTSIDE_CORE,
  ];
  // A folder's files with rows of their own are as far from its other files as any other room.
  const split = Object.keys(ROOMS).filter((r) => r !== room && r.startsWith(`${ownFolder(room)}/`));
  if (split.length)
    zones.push({
      target: ".",
      from: split.map((r) => `./src/core/${r}`),
      message: `src/core/${room} may not import ${split.join(", ")}, which has a row of its own in docs/architecture.md's table.`,
    });
  return ["error", { basePath: ROOT, zones }];
}

const rows = ROOMS;
// Each file gets one row: a folder's row leaves out its files that have rows of their own.
const roomConfigs = Object.entries(rows).map(([room, allowed]) => ({
  files: [filesOf(room)],
  ignores: Object.keys(rows)
    .filter((r) => r !== room && r.startsWith(`${room}/`))
    .map(filesOf),
  rules: { "import-x/no-restricted-paths": restrictedPaths(room, allowed) },
}));

const obsidian = { name: "obsidian", message: "src/core and the hook bridge run in Node, never in Obsidian: only src/plugin imports obsidian." };

const roomRules = [
  {
    files: SOURCES,
    plugins: { "import-x": importX },
    settings: { "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".mjs", ".cjs", ".js", ".json"] })] },
    // An import the resolver cannot find would pass the table unchecked.
    rules: { "import-x/no-unresolved": ["error", { ignore: ["^obsidian$"] }] },
  },
  // A file of src/core with no row (the test says which) still keeps out of the plugin and the bridge.
  { files: ["src/core/**/*.ts"], rules: { "import-x/no-restricted-paths": ["error", { basePath: ROOT, zones: [OUTSIDE_CORE] }] } },
  ...roomConfigs,
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [obsidian],
          patterns: [
            {
              regex: `^(?!node:|\\.|obsidian$|(${CORE_PACKAGES.join("|")})(/|$))`,
              message: `src/core imports node:* and ${CORE_PACKAGES.join(", ")} only (docs/architecture.md).`,
            },
          ],
        },
      ],
    },
  },
  {
    files: ["hook-bridge/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [obsidian],
          patterns: [
            {
              regex: `^(?!node:|\\.|obsidian$|(${BRIDGE_PACKAGES.join("|")})(/|$))`,
              message: `The hook bridge imports src/core, node:* and ${BRIDGE_PACKAGES.join(", ")} only (docs/architecture.md).`,
            },
          ],
        },
      ],
      "import-x/no-restricted-paths": [
        "error",
        {
          basePath: ROOT,
          zones: [{ target: ".", from: "./src/plugin", message: "The hook bridge imports src/core, never the plugin (docs/architecture.md)." }],
        },
      ],
    },
  },
  {
    files: MAIL_FILES,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [obsidian],
          patterns: [
            {
              regex: `^(?!node:|\\.|obsidian$|(${MAIL_PACKAGES.join("|")})(/|$))`,
              message: `The mail sender imports src/core, node:* and ${MAIL_PACKAGES.join(", ")} only (docs/architecture.md).`,
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/plugin/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!node:|\\.|obsidian$)", message: "The plugin imports src/core, obsidian and node:* only (docs/architecture.md)." }] },
      ],
      "import-x/no-restricted-paths": [
        "error",
        {
          basePath: ROOT,
          zones: [{ target: ".", from: "./hook-bridge", message: "The plugin imports src/core and obsidian, never the hook bridge (docs/architecture.md)." }],
        },
      ],
    },
  },
];

export default defineConfig([
  { ignores: ["node_modules/", "main.js", "hook-bridge/dist/", "claude-plugin/scripts/", "test-artifacts/", "sample-vault/", ".cache/"] },
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["eslint.config.mjs", "eslint.manifest.config.mjs", "esbuild.config.mjs", "vitest.config.ts", "scripts/*.mjs", "eval/*.mjs"],
          // The build and dev scripts outside tsconfig's project (about a dozen); typed lint
          // refuses more than 8 such files unless told how many to expect.
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 24,
        },
      },
    },
  },
  {
    rules: {
      "obsidianmd/ui/sentence-case": ["warn", { brands: ["Vault Memory", "Claude Code", "Claude", "Obsidian", "Git"] }],
    },
  },
  {
    // A function that does not fit on a screen or two does more than one thing: split it into
    // named steps.
    files: ["src/**/*.ts", "hook-bridge/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The core and the bridge run in Node as well as in desktop Obsidian (the plugin is
    // desktop-only because it spawns processes), so Node built-ins are expected there.
    files: ["src/core/**/*.ts", "hook-bridge/**/*.ts", "scripts/**", "eval/**", "test/**"],
    rules: { "obsidianmd/no-nodejs-modules": "off" },
  },
  {
    // Tests and the fake drive Obsidian's API from outside, and scripts are terminal programs:
    // the rules about how a plugin should behave inside Obsidian do not apply to them.
    files: ["test/**", "scripts/**", "eval/**"],
    rules: {
      "no-console": "off",
      "obsidianmd/rule-custom-message": "off",
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/hardcoded-config-path": "off",
      "obsidianmd/prefer-file-manager-trash-file": "off",
      "obsidianmd/no-tfile-tfolder-cast": "off",
      "obsidianmd/prefer-active-doc": "off",
      "obsidianmd/prefer-create-el": "off",
      "obsidianmd/ui/sentence-case": "off",
      // Tests run in Node as well as in a DOM, where only globalThis is always there.
      "obsidianmd/no-global-this": "off",
      // Asymmetric matchers (expect.any, expect.stringContaining) are typed any by design.
      "@typescript-eslint/no-unsafe-assignment": "off",
    },
  },
  ...roomRules,
]);
