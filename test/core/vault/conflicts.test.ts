import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tokenize } from "../../../src/core/text/tokenizer";
import { alikeCounts, conflictFamilies, copyShape } from "../../../src/core/vault/conflicts";
import { CORPUS, HAS_CORPUS, markdownFiles, NO_CORPUS } from "../../helpers";

const same = (): boolean => true;
const never = (): boolean => false;

describe("sync conflict copies", () => {
  it.each([
    ["n/note.sync-conflict-20240101-123456-ABCDEFG.md", "syncthing"],
    ["n/note.sync-conflict-20240101-123456.md", "syncthing"],
    ["n/note (conflicted copy 2024-01-01).md", "dropbox"],
    ["n/note (Person's conflicted copy 2024-01-01).md", "dropbox"],
    ["n/note (Anna’s conflicted copy 2024-01-01 093012).md", "dropbox"],
    ["n/note (Case Conflict).md", "dropbox"],
    ["n/note 2.md", "numbered"],
    ["n/note 13.md", "numbered"],
    ["n/note (1).md", "numbered"],
    ["n/Note.md", undefined],
    ["n/note 1.md", undefined],
    ["n/2.md", undefined],
    ["n/v2.md", undefined],
  ])("reads %s as %s", (path, kind) => {
    const shape = copyShape(path);
    expect(shape?.kind).toBe(kind);
    if (shape) expect(shape.key).toBe("n/note");
  });

  it("finds an original with every kind of copy, and keeps the original", () => {
    const paths = [
      "r/café.md",
      "r/café.sync-conflict-20240101-123456-ABCDEFG.md",
      "r/café (conflicted copy 2024-01-01).md",
      "r/café 2.md",
      "r/café (1).md",
      "r/Café.md",
      "r/cafe\u0301.md",
      "elsewhere/café 2.md",
    ];
    const families = conflictFamilies(paths, same);
    expect(families).toHaveLength(1);
    expect(families[0].keep).toBe("r/café.md");
    expect(Object.fromEntries(families[0].copies.map((c) => [c.path, c.kind]))).toEqual({
      "r/café.sync-conflict-20240101-123456-ABCDEFG.md": "syncthing",
      "r/café (conflicted copy 2024-01-01).md": "dropbox",
      "r/café 2.md": "numbered",
      "r/café (1).md": "numbered",
      "r/Café.md": "case",
      "r/cafe\u0301.md": "unicode",
    });
  });

  it("takes a numbered name for a copy only beside its original, and only when their texts are alike", () => {
    expect(conflictFamilies(["book/Chapter 2.md"], same)).toEqual([]);
    expect(conflictFamilies(["book/Chapter 2.md", "book/Chapter 3.md"], same)).toEqual([]);
    expect(conflictFamilies(["book/Chapter.md", "book/Chapter 2.md"], never)).toEqual([]);
    const asked: [string, string][] = [];
    const families = conflictFamilies(["book/Chapter.md", "book/Chapter 2.md"], (copy, original) => (asked.push([copy, original]), true));
    expect(asked).toEqual([["book/Chapter 2.md", "book/Chapter.md"]]);
    expect(families).toEqual([{ keep: "book/Chapter.md", copies: [{ path: "book/Chapter 2.md", kind: "numbered" }] }]);
  });

  it("keeps the first of copies whose original is gone, and keeps the NFC name of a Unicode twin", () => {
    const gone = conflictFamilies(["a/x.sync-conflict-20240102-000000-B.md", "a/x.sync-conflict-20240101-000000-A.md"], same);
    expect(gone).toEqual([{ keep: "a/x.sync-conflict-20240101-000000-A.md", copies: [{ path: "a/x.sync-conflict-20240102-000000-B.md", kind: "syncthing" }] }]);
    expect(conflictFamilies(["a/x.sync-conflict-20240101-000000-A.md"], same)).toEqual([]);
    expect(conflictFamilies(["a/cafe\u0301.md", "a/café.md"], never)).toEqual([{ keep: "a/café.md", copies: [{ path: "a/cafe\u0301.md", kind: "unicode" }] }]);
    expect(conflictFamilies(["a/Note.md", "a/note.md"], never)).toEqual([{ keep: "a/note.md", copies: [{ path: "a/Note.md", kind: "case" }] }]);
  });

  it("counts texts alike when they share most of their words", () => {
    const words = (s: string) => {
      const m = new Map<string, number>();
      for (const w of s.split(" ")) m.set(w, (m.get(w) ?? 0) + 1);
      return m;
    };
    const text = "restic forget prune weekly check the repository every night at two";
    expect(alikeCounts(words(text), words(text))).toBe(true);
    expect(alikeCounts(words(text), words(text + " and till"))).toBe(true);
    expect(alikeCounts(words(text), words("incremental backups with rsync link dest hard links"))).toBe(false);
    expect(alikeCounts(new Map(), new Map())).toBe(true);
  });
});

describe.skipIf(!HAS_CORPUS)(`sync conflict copies in Obsidian's help, every language${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, () => {
  it("takes no note there for a copy: notes of one name in other folders or languages are not twins", () => {
    const paths = markdownFiles(CORPUS);
    expect(paths.length).toBeGreaterThan(6000);
    const words = (p: string) => {
      const m = new Map<string, number>();
      for (const w of tokenize(readFileSync(join(CORPUS, p), "utf8"))) m.set(w, (m.get(w) ?? 0) + 1);
      return m;
    };
    expect(conflictFamilies(paths, (copy, original) => alikeCounts(words(copy), words(original)))).toEqual([]);
  });
});
