// Builds the hook bridge (a single ESM file for Node) and the Obsidian plugin (main.js, CommonJS).
import esbuild from "esbuild";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

const production = process.argv.includes("production");
const watch = process.argv.includes("watch");
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * Loads Node built-ins with require() instead of ESM import. An ESM import of node:fs builds a
 * facade over all of fs's exports, and touching them loads the whole streams stack: about 5 ms
 * of every hook's start-up, for nothing.
 * @returns {esbuild.Plugin}
 */
function builtinsViaRequire() {
  const isBuiltin = (id) => builtinModules.includes(id.replace(/^node:/, ""));
  return {
    name: "builtins-via-require",
    setup(build) {
      build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        // The stand-in module's own require() is the real thing, resolved at run time.
        if (args.namespace === "vm-builtin") return { path: args.path, external: true };
        return { path: args.path, namespace: "vm-builtin" };
      });
      // Named exports of the built-in's plain values, read once: no getters (fs's ReadStream
      // getter alone loads the streams stack) and no copying of every property at start-up.
      build.onLoad({ filter: /.*/, namespace: "vm-builtin" }, (args) => {
        const real = requireHere(args.path);
        const names = Object.entries(Object.getOwnPropertyDescriptors(real))
          .filter(([name, d]) => "value" in d && /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default")
          .map(([name]) => name);
        const lines = names.map((n) => `export const ${n} = m.${n};`);
        return { contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\n${lines.join("\n")}`, loader: "js" };
      });
    },
  };
}

/**
 * Swaps hook-bridge/src/cold.ts for a loader that compiles the rest of the bridge from a string
 * on first use. A string literal costs the parser almost nothing; code costs every prompt.
 * @returns {esbuild.Plugin}
 */
function coldCommandsAsString() {
  return {
    name: "cold-commands-as-string",
    setup(build) {
      build.onResolve({ filter: /\/cold$/ }, (args) =>
        args.importer.includes("hook-bridge") ? { path: "cold", namespace: "vm-cold" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "vm-cold" }, async () => {
        const cold = await esbuild.build({
          ...shared,
          entryPoints: ["hook-bridge/src/cli.ts"],
          format: "cjs",
          write: false,
          plugins: [],
        });
        const source = cold.outputFiles[0].text;
        return {
          loader: "js",
          contents: `
            let loaded;
            function load() {
              if (!loaded) {
                const wrapper = require("node:vm").runInThisContext(
                  "(function (require, module, exports) {" + ${JSON.stringify(source)} + "\\n})",
                  { filename: "vault-memory-commands.cjs" },
                );
                const module = { exports: {} };
                wrapper(require, module, module.exports);
                loaded = module.exports;
              }
              return loaded;
            }
            export function runCli(argv) { return load().runCli(argv); }
            export function rememberSession(...args) { return load().rememberSession(...args); }
            export function recallWithoutVault(...args) { return load().recallWithoutVault(...args); }
            export function rememberReply(...args) { return load().rememberReply(...args); }
          `,
        };
      });
    },
  };
}

/** Options both bridge bundles share. @type {esbuild.BuildOptions} */
const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  // Every byte is parsed on every prompt, so the bridge is always minified.
  minify: true,
  legalComments: "none",
};

/** @type {esbuild.BuildOptions} */
const bridge = {
  entryPoints: ["hook-bridge/vault-memory.ts"],
  outfile: "hook-bridge/dist/vault-memory.mjs",
  ...shared,
  format: "esm",
  logLevel: "info",
  // gray-matter is CommonJS and requires Node built-ins, and ESM has no `require` of its own. The
  // shim serves built-ins only: js-yaml probes for an optional `esprima` at load time, and letting
  // it find one in a nearby node_modules would cost every hook milliseconds.
  banner: {
    js:
      "#!/usr/bin/env node\n" +
      "import{createRequire as __vmCR,isBuiltin as __vmIB}from'node:module';" +
      "const __vmReq=__vmCR(import.meta.url);" +
      "const require=(id)=>{if(!__vmIB(id))throw new Error('not bundled: '+id);return __vmReq(id)};",
  },
  plugins: [builtinsViaRequire(), coldCommandsAsString()],
};

/**
 * The MCP server, a bundle of its own: it carries the MCP SDK, which no hook may parse. CommonJS,
 * so that the bridge's `mcp` command (compiled from a string, where import() is unavailable on
 * Node 20) can load it with require.
 * @type {esbuild.BuildOptions}
 */
const mcp = {
  entryPoints: ["hook-bridge/vault-memory-mcp.ts"],
  outfile: "hook-bridge/dist/vault-memory-mcp.cjs",
  ...shared,
  format: "cjs",
  logLevel: "info",
  banner: { js: "#!/usr/bin/env node" },
};

/**
 * Fills src/plugin/bridge-source.ts with the built bridge, so main.js carries it.
 * @returns {esbuild.Plugin}
 */
function embedBridge() {
  return {
    name: "embed-bridge",
    setup(build) {
      build.onLoad({ filter: /src[\\/]plugin[\\/]bridge-source\.ts$/ }, () => ({
        contents: `export const BRIDGE_SOURCE = ${JSON.stringify(readFileSync(bridge.outfile, "utf8"))};`,
        loader: "js",
      }));
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
  plugins: [embedBridge()],
};

if (watch) {
  const contexts = await Promise.all([esbuild.context(bridge), esbuild.context(mcp), esbuild.context(plugin)]);
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all([esbuild.build(bridge), esbuild.build(mcp)]);
  // The Claude Code plugin package carries the same bridge and server. They are committed, since
  // an installed plugin is a copy of the repository and runs no build; a test checks they are current.
  mkdirSync("claude-plugin/scripts", { recursive: true });
  copyFileSync(bridge.outfile, "claude-plugin/scripts/vault-memory.mjs");
  copyFileSync(mcp.outfile, "claude-plugin/scripts/vault-memory-mcp.cjs");
  await esbuild.build(plugin);
}
