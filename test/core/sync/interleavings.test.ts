/**
 * Random interleavings of edits, digests and syncs on two computers over a real git remote.
 * Every edit writes a word of its own; at the end, after both have synced, every word ever
 * written is in the card it was written to or in a conflict copy the syncs reported, the two
 * vaults are the same, and no note holds a conflict marker. SYNC_STEPS and SYNC_SEED run it
 * longer or again (the seed of a failed run is in its message).
 */

import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { setFrontmatter } from "../../../src/core/card/frontmatter-edit";
import { commitVault } from "../../../src/core/digest/git";
import { INDEX_END, INDEX_START } from "../../../src/core/digest/pages";
import { syncVault } from "../../../src/core/sync/sync";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../../git-remote";

const STEPS = Number(process.env.SYNC_STEPS ?? 100);
const SEED = Number(process.env.SYNC_SEED ?? 20261206);

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const card = (name: string, tags: string[], lines: string[]): string =>
  `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [${tags.join(", ")}]\n---\n${lines.join("\n")}\n`;

function notes(c: Computer): string[] {
  return readdirSync(c.vault, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && !f.startsWith(".git") && !f.startsWith(".vault-memory"))
    .sort();
}

describe.skipIf(!gitAvailable)(`${STEPS} random steps of edits, digests and syncs on two computers`, () => {
  let remote: Remote;
  beforeAll(async () => {
    remote = await startRemote();
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it(`loses no word, makes no duplicate, leaves no marker (seed ${SEED})`, () => {
    const random = prng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const seed: Record<string, string> = {};
    for (let i = 0; i < 4; i++) seed[`reference/card-${i}.md`] = card(`card ${i}`, ["t"], [`line one of ${i}`, `line two of ${i}`, `line three of ${i}`]);
    const a = computer(remote.url, "desk", { seed: { ...seed, "MEMORY.md": `# Memory\n\n${INDEX_START}\n${INDEX_END}\n` } });
    const b = computer(remote.url, "laptop");
    const computers = [a, b];
    // Each word written, with the card it went to.
    const written: { word: string; path: string }[] = [];
    let conflicts = 0;
    let n = 0;
    const sync = (c: Computer): void => {
      const r = syncVault({ vault: c.vault, env: c.env, machine: c === a ? "desk" : "laptop" });
      expect(r.ok, `seed ${SEED}: ${r.error}`).toBe(true);
      conflicts += r.conflicts.length;
    };
    const cardsOf = (c: Computer): string[] => notes(c).filter((p) => p.startsWith("reference/") && !p.includes("conflicted copy"));
    for (let step = 0; step < STEPS; step++) {
      const c = pick(computers);
      const op = random();
      const word = `w${++n}x`;
      if (op < 0.3) {
        // A line of a card rewritten, or one added at a random place.
        const path = pick(cardsOf(c));
        const text = readFileSync(join(c.vault, path), "utf8").split("\n");
        const body = text.indexOf("---", 1) + 1;
        const at = body + Math.floor(random() * (text.length - 1 - body));
        // Only a line no edit wrote is rewritten: a word is lost by the person's own overwrite, never by a sync.
        const plain = text.map((_, i) => i).filter((i) => i >= body && i < text.length - 1 && /^line /.test(text[i]));
        if (random() < 0.5 && plain.length > 0) text[pick(plain)] = `rewritten ${word}`;
        else text.splice(at, 0, `added ${word}`);
        writeFileSync(join(c.vault, path), text.join("\n"));
        written.push({ word, path });
      } else if (op < 0.45) {
        // A tag added: merged as a union when both add one.
        const path = pick(cardsOf(c));
        const text = readFileSync(join(c.vault, path), "utf8");
        writeFileSync(join(c.vault, path), setFrontmatter(text, { tags: [...parseCard(path, text).tags, word] }));
        written.push({ word, path });
      } else if (op < 0.6) {
        // The night's digest: a new card, the index block written again, committed.
        const path = `reference/${c === a ? "desk" : "laptop"}-${word}.md`;
        mkdirSync(dirname(join(c.vault, path)), { recursive: true });
        writeFileSync(join(c.vault, path), card(word, ["new"], [`made by the digest ${word}`]));
        const index = cardsOf(c).map((p) => `- [[${p}]]`);
        writeFileSync(join(c.vault, "MEMORY.md"), `# Memory\n\n${INDEX_START}\n${index.join("\n")}\n${INDEX_END}\n`);
        commitVault(c.vault, `digest ${word}`);
        written.push({ word, path });
      } else {
        sync(c);
      }
    }
    // Both computers end with what each other has.
    for (const c of [a, b, a, b]) sync(c);
    expect(notes(a), `seed ${SEED}`).toEqual(notes(b));
    for (const path of notes(a)) expect(readFileSync(join(a.vault, path), "utf8"), `seed ${SEED}: ${path}`).toBe(readFileSync(join(b.vault, path), "utf8"));
    const all = notes(a);
    for (const path of all) expect(readFileSync(join(a.vault, path), "utf8"), `seed ${SEED}: ${path}`).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)( |$)/m);
    const copies = all.filter((p) => p.includes("conflicted copy"));
    expect(copies.length, `seed ${SEED}: every copy on disk was reported`).toBe(conflicts);
    for (const { word, path } of written) {
      const family = [path, ...copies.filter((p) => p.startsWith(path.replace(/\.md$/, " (conflicted copy ")))];
      const found = family.some((p) => existsSync(join(a.vault, p)) && new RegExp(`\\b${word}\\b`).test(readFileSync(join(a.vault, p), "utf8")));
      expect(found, `seed ${SEED}: ${word}, written to ${path}, is in neither it nor a copy of it`).toBe(true);
    }
  }, 600_000);
});
