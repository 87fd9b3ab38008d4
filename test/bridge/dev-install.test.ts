/** What `npm ci` installs for a developer, and how the end-to-end tests get the Claude Code CLI instead. */

import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../helpers";
import { CLAUDE_PIN, FETCH_HINT, cachedClaude, findClaude } from "../e2e/claude-bin";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };

const fetchScript = () => import("../../scripts/fetch-claude.mjs");

describe("npm ci", () => {
  it("does not install the 400 MB Claude Code binary, which only the end-to-end tests use", () => {
    for (const field of ["dependencies", "devDependencies", "optionalDependencies"])
      expect(Object.keys(pkg[field] ?? {}).filter((n) => n.startsWith("@anthropic-ai/claude-code"))).toEqual([]);
    expect(Object.keys(lock.packages).filter((p) => p.includes("@anthropic-ai/claude-code"))).toEqual([]);
  });

  it("runs esbuild's install script as reviewed, so npm does not warn of it", () => {
    // By name: the lockfile holds no download addresses, which npm needs to pin a version.
    expect(pkg.allowScripts).toEqual({ esbuild: true });
  });

  it("is followed in CI by fetching the CLI before the tests run", () => {
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
    expect(ci.indexOf("npm run fetch-claude")).toBeGreaterThan(ci.indexOf("npm ci"));
    expect(ci.indexOf("npm run fetch-claude")).toBeLessThan(ci.indexOf("npm test"));
    expect((pkg.scripts as Record<string, string>)["fetch-claude"]).toBe("node scripts/fetch-claude.mjs");
  });
});

describe("the Claude Code CLI for the end-to-end tests", () => {
  it("is the version the lockfile pinned, fetched and found at the same place", async () => {
    const script = await fetchScript();
    expect(CLAUDE_PIN.version).toBe("2.1.332");
    expect(script.PIN).toEqual(CLAUDE_PIN);
    expect(script.cachedClaude("/home/me")).toBe(cachedClaude("/home/me"));
    expect(cachedClaude("/home/me")).toBe("/home/me/.cache/vault-memory-dev/claude-2.1.332/claude");
  });

  it("is refused when the tarball's checksum is not the pinned one", async () => {
    const script = await fetchScript();
    const file = join(tempDir(), "claude.tgz");
    writeFileSync(file, "not the CLI");
    await expect(script.checkTarball(file)).rejects.toThrow(/is not the pinned @anthropic-ai\/claude-code-linux-x64@2\.1\.332: its checksum is sha512-/);
    await expect(script.checkTarball(file, await script.integrityOf(file))).resolves.toBeUndefined();
  });

  it("is CLAUDE_BIN when set, else the cached copy, and missing says how to fetch it in one line", () => {
    const home = tempDir();
    expect(findClaude({}, home)).toEqual({ bin: cachedClaude(home), ok: false });
    const bin = join(tempDir(), "claude");
    writeFileSync(bin, "#!/bin/sh\n");
    expect(findClaude({ CLAUDE_BIN: bin }, home).ok).toBe(process.platform === "win32");
    chmodSync(bin, 0o755);
    expect(findClaude({ CLAUDE_BIN: bin }, home)).toEqual({ bin, ok: true });
    expect(FETCH_HINT).not.toContain("\n");
    expect(FETCH_HINT).toContain("npm run fetch-claude");
  });
});
