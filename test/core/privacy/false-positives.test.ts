/**
 * The generic detector against real notes: every note of every corpus vault (Obsidian's help in
 * 30+ languages) and the sample vault, none of which holds a secret. The figure is docs/reliability.md's.
 */

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../../src/core/privacy/redact";
import { CORPUS, HAS_CORPUS, markdownFiles, NO_CORPUS, SAMPLE_VAULT } from "../../helpers";

const vaults = (): string[] => [
  ...(HAS_CORPUS
    ? readdirSync(CORPUS)
        .map((v) => join(CORPUS, v))
        .filter((p) => statSync(p).isDirectory())
    : []),
  SAMPLE_VAULT,
];

describe(HAS_CORPUS ? "secret redaction on real notes" : `secret redaction on real notes (sample vault only: ${NO_CORPUS})`, () => {
  it("changes at most 1 note in 1,000, and says which", () => {
    let notes = 0;
    const changed: string[] = [];
    for (const vault of vaults()) {
      for (const rel of markdownFiles(vault)) {
        notes++;
        const text = readFileSync(join(vault, rel), "utf8");
        if (redactSecrets(text) !== text) changed.push(join(vault, rel));
      }
    }
    console.log(`secret redaction changed ${changed.length} of ${notes} notes that hold no secret`);
    expect(notes).toBeGreaterThan(HAS_CORPUS ? 6000 : 10);
    expect(changed.length, changed.join("\n")).toBeLessThanOrEqual(Math.floor(notes / 1000));
  }, 120_000);
});
