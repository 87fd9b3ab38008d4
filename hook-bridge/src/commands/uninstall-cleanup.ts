/**
 * What `uninstall --yes` takes away besides the hook entries and the MCP server: the bridge copy
 * install made in the person's data folder (moved aside, never deleted, and left where the
 * nightly schedule still runs it or where it is the Obsidian plugin's own folder), the code
 * cache the hooks wrote for it, and a settings file left holding nothing but `{}`.
 */

import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { cacheDir, cacheName } from "../code-cache";
import { userDataDir, vaultId } from "../../../src/core/install/install";
import { BRIDGE_FILES, MCP_SERVER_FILE } from "../../../src/core/install/hook-commands";
import { crontabLine, detectPlatform, installedUnits, moveAside } from "../../../src/core/install/schedule";

const OURS = new Set<string>([...BRIDGE_FILES, MCP_SERVER_FILE]);

/** What the cleanup would do, as lines; `apply` does it and says what was done. */
export function planCleanup(home: string, vault: string, env: NodeJS.ProcessEnv = process.env): { lines: string[]; apply: () => string[] } {
  const bridges = join(userDataDir(env), "bridges");
  const inData = !relative(bridges, home).startsWith("..") && relative(bridges, home) !== "";
  const caches = [...OURS].map((f) => join(cacheDir(env), cacheName(join(home, f)))).filter((p) => existsSync(p));
  const lines: string[] = [];
  let moveBridge = false;
  if (!existsSync(home)) {
    /* nothing was copied */
  } else if (!inData) lines.push(`The bridge in ${home} is the Obsidian plugin's own; it stays.`);
  else if (scheduled(vault, env)) lines.push(`The bridge copy ${home} stays: the nightly schedule runs it (\`schedule remove\` first, then uninstall again).`);
  else {
    const foreign = readdirSync(home).filter((f) => !OURS.has(f));
    if (foreign.length > 0) lines.push(`The bridge copy ${home} stays: it also holds ${foreign.slice(0, 3).join(", ")}, which Vault Memory did not write.`);
    else {
      moveBridge = true;
      lines.push(`Would move the bridge copy ${home} to ${join(userDataDir(env), "removed")}${sep}`);
    }
  }
  if (caches.length > 0) lines.push(`Would remove the hooks' code cache (${caches.length} ${caches.length === 1 ? "file" : "files"} in ${cacheDir(env)})`);
  return {
    lines,
    apply: () => {
      const done: string[] = lines.filter((l) => !l.startsWith("Would "));
      if (moveBridge) done.push(`Moved the bridge copy ${home} to ${moveAside(home, env)}`);
      // A cache V8 made from the bridge's code: made again by the next run that needs it.
      for (const c of caches) rmSync(c, { force: true });
      if (caches.length > 0) done.push(`Removed the hooks' code cache (${caches.length} ${caches.length === 1 ? "file" : "files"})`);
      return done;
    },
  };
}

/** Whether this vault's nightly digest is scheduled on this computer, which runs the bridge copy. */
function scheduled(vault: string, env: NodeJS.ProcessEnv): boolean {
  const name = `vault-memory-digest-${vaultId(vault)}`;
  const platform = detectPlatform(env);
  return platform === "cron" ? crontabLine(name, env) !== undefined : installedUnits(platform, name, env).length > 0;
}
