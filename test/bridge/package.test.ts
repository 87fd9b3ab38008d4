/**
 * The `vault-memory` command: `npm pack` makes a package that, installed into an empty folder,
 * gives a working `vault-memory` with nothing else to fetch (the bridge is bundled whole), as
 * `npx vault-memory`, a global install or `npm link` in a clone would.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, SAMPLE_VAULT, copyVault, tempDir } from "../helpers";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

describe("the packed package", () => {
  it("installs into an empty folder, offline, and runs as vault-memory", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; dependencies?: Record<string, string> };
    expect(pkg.bin).toEqual({ "vault-memory": "hook-bridge/dist/vault-memory.cjs" });
    // Bundled whole: an installed package needs nothing from the registry.
    expect(pkg.dependencies ?? {}).toEqual({});
    const out = tempDir();
    // The suite has built already (npm test does): packed as it is, without building again.
    execFileSync(npm, ["pack", "--ignore-scripts", "--pack-destination", out], { cwd: ROOT, stdio: "ignore" });
    const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"))!;
    const app = tempDir();
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "empty", version: "1.0.0", private: true }));
    execFileSync(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(out, tarball)], { cwd: app, stdio: "ignore" });
    const bin = join(app, "node_modules", ".bin", "vault-memory");
    expect(existsSync(bin)).toBe(true);
    const help = spawnSync(bin, ["help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("usage: vault-memory <command>");
    // And it does the work: indexes a vault and recalls from it.
    const vault = copyVault(SAMPLE_VAULT);
    expect(spawnSync(bin, ["index", "--vault", vault], { encoding: "utf8" }).status).toBe(0);
    const recall = spawnSync(bin, ["recall", "--vault", vault], { input: JSON.stringify({ prompt: "为什么排程跑不起来" }), encoding: "utf8" });
    expect(recall.stdout).toContain("launchd-cron-path.md");
    // Install through the command's link, as a newcomer runs it: the bridge it copies is the one
    // the link leads to, not files beside the link in node_modules/.bin.
    const home = tempDir("vm-home-");
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_CACHE_HOME: join(home, ".cache"),
    };
    const install = spawnSync(bin, ["install", "--vault", vault, "--yes"], { encoding: "utf8", env });
    expect(install.status, install.stderr).toBe(0);
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toContain("UserPromptSubmit");
    expect(install.stdout).toMatch(/The installed hook, asked .*, gives Claude:\n\n<vault-memory-notes>/);
    const schedule = spawnSync(bin, ["schedule", "install", "--vault", vault, "--dry-run"], { encoding: "utf8", env });
    expect(schedule.status, schedule.stderr).toBe(0);
    expect(spawnSync(bin, ["uninstall", "--vault", vault, "--yes"], { encoding: "utf8", env }).status).toBe(0);
  });
});
