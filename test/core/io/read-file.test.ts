import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileRefused, readRegularFile, readTextIfAny } from "../../../src/core/io/read-file";
import { listMarkdown, MAX_NOTE_BYTES, readNote } from "../../../src/core/vault/scan";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { openVectors, writeVectors } from "../../../src/core/embed/vectors";
import { tempDir } from "../../helpers";

const why = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return err instanceof FileRefused ? err.why : "other";
  }
  return "read";
};

describe("readRegularFile", () => {
  it("reads a regular file, and refuses what is not one without blocking", () => {
    const dir = tempDir();
    const file = join(dir, "a.json");
    writeFileSync(file, "{}");
    expect(readRegularFile(file, { maxBytes: 10 }).toString()).toBe("{}");
    expect(why(() => readRegularFile(join(dir, "none"), { maxBytes: 10 }))).toBe("missing");
    expect(why(() => readRegularFile(dir, { maxBytes: 10 }))).toBe("not-regular");
    expect(why(() => readRegularFile("/dev/zero", { maxBytes: 10 }))).toBe("not-regular");
    if (process.platform === "win32") return;
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(why(() => readRegularFile(fifo, { maxBytes: 10 }))).toBe("not-regular");
  });

  it("bounds the size, follows a link only when asked to, and lets the caller refuse by owner or mode", () => {
    const dir = tempDir();
    const file = join(dir, "a");
    writeFileSync(file, "x".repeat(11));
    expect(why(() => readRegularFile(file, { maxBytes: 10 }))).toBe("too-large");
    expect(why(() => readRegularFile(file, { maxBytes: 11, check: () => "not yours" }))).toBe("refused");
    if (process.platform === "win32") return;
    const link = join(dir, "link");
    symlinkSync(file, link);
    expect(readRegularFile(link, { maxBytes: 11 }).length).toBe(11);
    expect(why(() => readRegularFile(link, { maxBytes: 11, noFollow: true }))).toBe("unreadable");
  });
});

describe("readers of files anyone may have put there", () => {
  it("reads the last bytes of a file past the bound when asked for its tail, and says what is missing", () => {
    const dir = tempDir();
    const file = join(dir, "log");
    writeFileSync(file, "old line\nnew line\n");
    expect(readRegularFile(file, { maxBytes: 9, tail: true }).toString()).toBe("new line\n");
    expect(readTextIfAny(join(dir, "none"), { maxBytes: 9 })).toBeUndefined();
    expect(() => readTextIfAny(dir, { maxBytes: 9 })).toThrow(/not a regular file \(a folder\)/);
  });

  it.runIf(process.platform !== "win32")("reads a note only when it is a regular file of a note's size, and lists why each other was left out", async () => {
    const vault = tempDir();
    writeFileSync(join(vault, "note.md"), "# a note\n");
    execFileSync("mkfifo", [join(vault, "fifo.md")]);
    symlinkSync("/dev/zero", join(vault, "zero.md"));
    mkdirSync(join(vault, "folder.md"));
    writeFileSync(join(vault, "folder.md", "inner.md"), "# inside\n");
    // Sparse: 600 MB on paper, nothing on disk; reading it whole would take 600 MB of memory.
    writeFileSync(join(vault, "huge.md"), "# huge\n");
    truncateSync(join(vault, "huge.md"), 600 << 20);
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(vault, "socket.md"), resolve));
    try {
      const skipped: string[] = [];
      const files = listMarkdown(vault, undefined, (s) => skipped.push(`${s.path}: ${s.reason}`));
      expect(files.map((f) => f.path)).toEqual(["folder.md/inner.md", "note.md"]);
      expect(skipped.sort()).toEqual([
        "fifo.md: not read: a FIFO, not a note",
        "huge.md: not read: 600 MB, over the 8 MB a note may be",
        "socket.md: not read: a socket, not a note",
        "zero.md: not read: a link (links are not followed), not a note",
      ]);
      expect(why(() => readNote(join(vault, "huge.md")))).toBe("too-large");
      expect(why(() => readNote(join(vault, "fifo.md")))).toBe("not-regular");
      expect(why(() => readNote(join(vault, "zero.md")))).toBe("not-regular");
      expect(MAX_NOTE_BYTES).toBeLessThan(300 << 20);
      // A note swapped for a FIFO after the listing is refused when read, and left out from then on.
      const notes = new NoteCache(vault);
      const listed = notes.list();
      execFileSync("rm", [join(vault, "note.md")]);
      execFileSync("mkfifo", [join(vault, "note.md")]);
      expect(notes.cards(listed).map((c) => c.path)).toEqual(["folder.md/inner.md"]);
      expect(notes.list().map((f) => f.path)).toEqual(["folder.md/inner.md"]);
      expect(notes.skipped.find((s) => s.path === "note.md")?.reason).toMatch(/a FIFO/);
    } finally {
      socket.close();
    }
  });

  it("opens a vectors file whose header claims more than the file holds without allocating by it", () => {
    const dir = tempDir();
    const vectors = join(dir, "vectors.bin");
    writeVectors(vectors, "base", "m", 4, [[{ scale: 1, values: new Int8Array([1, 2, 3, 4]) }]]);
    expect(openVectors(vectors, "base", "m").pieces).toBe(1);
    const lying = join(dir, "lying.bin");
    writeFileSync(
      lying,
      JSON.stringify({ format: "vault-memory-vectors", version: 2, base: "base", model: "m", dim: 1024, cards: 1, pieces: 2e9, checksum: 0 }) + "\n",
    );
    expect(() => openVectors(lying, "base", "m")).toThrow(/damaged/);
  });
});
