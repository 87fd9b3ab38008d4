/**
 * Every link in the README and docs/ leads somewhere: a file of this repository that exists, and,
 * with a #fragment, a heading of that page (as GitHub makes its anchors). The README is read by
 * every newcomer first, and a moved section would otherwise leave its links dead.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers";

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The page's text outside fenced code blocks, where `[x](y)` is code, not a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = m[1]
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe("the README and docs/", () => {
  it("keeps the README short enough to read in five minutes", () => {
    expect(readFileSync(join(ROOT, "README.md")).length).toBeLessThanOrEqual(15 * 1024);
  });

  it("lists every page of docs/ in the README's table of contents", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const page of PAGES.filter((p) => p !== "README.md")) expect(readme, page).toContain(`](${page})`);
  });

  it.each(PAGES)("%s links only to files and headings that exist", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    const dead: string[] = [];
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^(?:https?|mailto):/.test(target)) continue;
      const [file, fragment] = target.split("#", 2);
      const path = file === "" ? join(ROOT, page) : join(ROOT, dirname(page), file);
      if (!relative(ROOT, path).startsWith("..") && !existsSync(path)) {
        dead.push(`${target}: no such file`);
        continue;
      }
      if (fragment !== undefined && path.endsWith(".md") && !anchorsOf(readFileSync(path, "utf8")).has(fragment)) dead.push(`${target}: no such heading`);
    }
    expect(dead).toEqual([]);
  });

  it("makes anchors as GitHub does", () => {
    expect([...anchorsOf("# What it does to recall, measured\n## Install and uninstall\n## Uninstall\n## Uninstall\n### `embed.gate` (stand-out)\n")]).toEqual([
      "what-it-does-to-recall-measured",
      "install-and-uninstall",
      "uninstall",
      "uninstall-1",
      "embedgate-stand-out",
    ]);
  });
});
