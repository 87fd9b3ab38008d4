// Builds the hook bridge (a few CommonJS files for Node), the MCP server and the Obsidian plugin.
import esbuild from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
// WebAssembly is written as text (`.wat`) and assembled by wabt; the bundles carry the bytes.
import { wasmFromText } from "./scripts/wat.mjs";

const production = process.argv.includes("production");
const watch = process.argv.includes("watch");
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const DIST = "hook-bridge/dist";
/** What a copy of the bridge is, in the order it is written: the entry last, so no hook runs half a copy. */
export const BRIDGE_FILES = [
  "vault-memory-mail.cjs",
  "vault-memory-commands.cjs",
  "vault-memory-semantic.cjs",
  "vault-memory-scoring.cjs",
  "vault-memory-recall.cjs",
  "vault-memory.mjs",
  "vault-memory.cjs",
];

/** Options every bridge bundle shares. @type {esbuild.BuildOptions} */
const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minify: true,
  legalComments: "none",
  write: false,
  logLevel: "warning",
  plugins: [noCodeInYaml(), wasmFromText()],
};

/**
 * Takes out the two places where the YAML stack can run code: gray-matter's JavaScript engine
 * (`eval`) and js-yaml's `!!js/function` type (`new Function`). Neither is reachable (cards are
 * parsed with engines that refuse code, and gray-matter asks js-yaml for its safe schema), but a
 * bundle that holds them is one a reviewer must read twice.
 * @returns {esbuild.Plugin}
 */
function noCodeInYaml() {
  return {
    name: "no-code-in-yaml",
    setup(build) {
      build.onLoad({ filter: /gray-matter[\\/]lib[\\/]engines\.js$/ }, () => ({
        contents: `
          const yaml = require("js-yaml");
          const refuse = () => { throw new Error("JavaScript frontmatter is not run"); };
          module.exports = {
            yaml: { parse: yaml.safeLoad.bind(yaml), stringify: yaml.safeDump.bind(yaml) },
            json: { parse: JSON.parse.bind(JSON), stringify: (obj, o) => JSON.stringify(obj, (o || {}).replacer || null, (o || {}).space ?? 2) },
            javascript: { parse: refuse, stringify: refuse },
          };`,
        loader: "js",
        resolveDir: "node_modules/gray-matter/lib",
      }));
      build.onLoad({ filter: /js-yaml[\\/]lib[\\/]js-yaml[\\/]type[\\/]js[\\/]function\.js$/ }, () => ({
        contents: `
          const Type = require("../../type");
          module.exports = new Type("tag:yaml.org,2002:js/function", { kind: "scalar", resolve: () => false });`,
        loader: "js",
        resolveDir: "node_modules/gray-matter/node_modules/js-yaml/lib/js-yaml/type/js",
      }));
    },
  };
}

/**
 * Escapes what esbuild leaves non-ASCII (it does not escape inside regular expressions) in the file
 * of every other command, which is compiled afresh each run: one such character makes V8 hold the
 * whole file as two-byte text, twice the scanning. The files run through the code cache are left
 * as built: escaping them earned under 3% (docs/prompt-hook.md). `\uXXXX` means the same code unit
 * in a string, a template and a regular expression; an escaped non-ASCII character (`\。`) is that
 * character too.
 */
function asciiOnly(text) {
  return text.replace(/(\\*)([^\0-\x7f])/g, (_m, slashes, c) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return kept + "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  });
}

/**
 * The files the entry runs through its code cache (see code-cache.ts), each marked with its build.
 * They load Node's modules through the entry's require, nothing else.
 */
function markedForCache(name, text) {
  const foreign = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]).filter((name) => !name.startsWith("node:"));
  if (foreign.length > 0) throw new Error(`${name} requires ${foreign.join(", ")}: only node: modules can load through the entry's require`);
  // Names this build, so that a code cache written for another build is never used (see code-cache.ts).
  const build = createHash("sha256").update(text).digest("hex").slice(0, 16);
  return { build, text: `//vault-memory-build ${build}\n${text}` };
}

/** The bridge's files by name, built in memory. */
async function buildBridge() {
  const [mail, commands, semantic, scoring, recall] = await Promise.all([
    // nodemailer, in a file of its own that the digest loads only to mail its report: no hook parses it.
    esbuild.build({ ...shared, entryPoints: ["hook-bridge/vault-memory-mail.ts"] }),
    esbuild.build({ ...shared, entryPoints: ["hook-bridge/src/cli.ts"] }),
    esbuild.build({ ...shared, entryPoints: ["hook-bridge/src/prompt-hook/meaning.ts"] }),
    esbuild.build({ ...shared, entryPoints: ["hook-bridge/src/prompt-hook/answer.ts"] }),
    // The prompt hook's first file: the other files are loaded through the entry when a prompt needs them (prompt-hook/entry.ts).
    esbuild.build({ ...shared, entryPoints: ["hook-bridge/src/prompt-hook/entry.ts"] }),
  ]);
  const recallFile = markedForCache("the recall bundle", recall.outputFiles[0].text);
  const scoringFile = markedForCache("the scoring bundle", scoring.outputFiles[0].text);
  const semanticFile = markedForCache("the semantic bundle", semantic.outputFiles[0].text);
  const entry = await esbuild.build({
    ...shared,
    entryPoints: ["hook-bridge/vault-memory.ts"],
    define: {
      __VM_BUILDS__: JSON.stringify({
        "vault-memory-recall.cjs": recallFile.build,
        "vault-memory-scoring.cjs": scoringFile.build,
        "vault-memory-semantic.cjs": semanticFile.build,
      }),
    },
    banner: { js: "#!/usr/bin/env node" },
  });
  return {
    "vault-memory-mail.cjs": asciiOnly(mail.outputFiles[0].text),
    "vault-memory-commands.cjs": asciiOnly(commands.outputFiles[0].text),
    "vault-memory-semantic.cjs": semanticFile.text,
    "vault-memory-scoring.cjs": scoringFile.text,
    "vault-memory-recall.cjs": recallFile.text,
    // Hooks installed by earlier releases run this name; it hands over to the CommonJS entry.
    "vault-memory.mjs": '#!/usr/bin/env node\nimport { createRequire } from "node:module";\ncreateRequire(import.meta.url)("./vault-memory.cjs");\n',
    "vault-memory.cjs": entry.outputFiles[0].text,
  };
}

async function writeBridgeFiles() {
  const files = await buildBridge();
  mkdirSync(DIST, { recursive: true });
  // The Claude Code plugin package carries the same bridge and server. They are committed, since
  // an installed plugin is a copy of the repository and runs no build; a test checks they are current.
  mkdirSync("claude-plugin/scripts", { recursive: true });
  for (const name of BRIDGE_FILES) {
    writeFileSync(`${DIST}/${name}`, files[name], { mode: 0o755 });
    writeFileSync(`claude-plugin/scripts/${name}`, files[name], { mode: 0o755 });
  }
  return files;
}

/**
 * The MCP server, a bundle of its own: it carries the MCP SDK, which no hook may parse.
 * @type {esbuild.BuildOptions}
 */
const mcp = {
  ...shared,
  write: true,
  entryPoints: ["hook-bridge/vault-memory-mcp.ts"],
  outfile: `${DIST}/vault-memory-mcp.cjs`,
  logLevel: "info",
  banner: { js: "#!/usr/bin/env node" },
};

/**
 * Fills src/plugin/bridge-source.ts with the built bridge, so main.js carries it, and the MCP
 * server gzipped (a quarter of its megabyte, which every Obsidian start would load).
 * @returns {esbuild.Plugin}
 */
function embedBridge() {
  return {
    name: "embed-bridge",
    setup(build) {
      build.onLoad({ filter: /src[\\/]plugin[\\/]bridge-source\.ts$/ }, () => {
        const files = Object.fromEntries(BRIDGE_FILES.map((name) => [name, readFileSync(`${DIST}/${name}`, "utf8")]));
        const server = gzipSync(readFileSync(mcp.outfile), { level: 9 }).toString("base64");
        return { contents: `export const BRIDGE_FILES = ${JSON.stringify(files)};\nexport const MCP_SERVER_GZIP = ${JSON.stringify(server)};`, loader: "js" };
      });
    },
  };
}

/** @type {esbuild.BuildOptions} */
const plugin = {
  entryPoints: ["src/plugin/main.ts"],
  outfile: "main.js",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "es2022",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...nodeBuiltins],
  minify: production,
  sourcemap: production ? false : "inline",
  treeShaking: true,
  legalComments: "none",
  logLevel: "info",
  plugins: [noCodeInYaml(), wasmFromText(), embedBridge()],
};

await Promise.all([writeBridgeFiles(), esbuild.build(mcp)]);
copyFileSync(mcp.outfile, "claude-plugin/scripts/vault-memory-mcp.cjs");
if (watch) {
  // The bridge is rebuilt with the plugin, so main.js always carries the bridge of the same source.
  const rebuildBridge = { name: "rebuild-bridge", setup: (b) => b.onStart(() => writeBridgeFiles().then(() => undefined)) };
  const contexts = await Promise.all([
    esbuild.context(mcp),
    esbuild.context({ ...plugin, plugins: [rebuildBridge, noCodeInYaml(), wasmFromText(), embedBridge()] }),
  ]);
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await esbuild.build(plugin);
}
