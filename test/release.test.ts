import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../src/core/version";

// One version for everything a person installs: a bump that misses a file fails here.
const root = join(__dirname, "..");
const json = (file: string) => JSON.parse(readFileSync(join(root, file), "utf8")) as Record<string, unknown>;

describe("the release's version", () => {
  const pkg = json("package.json").version;

  it("is the same in package.json, the lockfile, both plugins' manifests and the MCP server", () => {
    expect(pkg).toMatch(/^\d+\.\d+\.\d+$/);
    expect(json("package-lock.json").version).toBe(pkg);
    expect(json("manifest.json").version).toBe(pkg);
    expect(json("claude-plugin/.claude-plugin/plugin.json").version).toBe(pkg);
    expect(VERSION).toBe(pkg);
  });

  it("names in versions.json the oldest Obsidian the manifest asks for", () => {
    const versions = json("versions.json");
    expect(versions[pkg as string]).toBe(json("manifest.json").minAppVersion);
  });

  it("is the newest release in CHANGELOG.md, with a date", () => {
    const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)];
    expect(released[0]?.[1]).toBe(pkg);
    // Keep a Changelog: an Unreleased section above the releases gathers what comes next.
    expect(changelog.indexOf("## [Unreleased]")).toBeLessThan(released[0]?.index ?? -1);
  });
});
