import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChangedSince, rewriteText, writeFileAtomic } from "../../../src/core/io/atomic";
import { writeFileAtomicAsync } from "../../../src/core/io/atomic-async";
import { tempDir } from "../../helpers";

const parts = [Buffer.from("head\n"), Buffer.alloc(3 << 20, 0x61), Buffer.from("\ntail 記憶\n")];
const whole = Buffer.concat(parts);
const temps = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".tmp"));

describe.each([
  ["writeFileAtomic", async (path: string, data: readonly Uint8Array[]) => writeFileAtomic(path, data)],
  ["writeFileAtomicAsync", writeFileAtomicAsync],
])("%s", (_, write) => {
  it("writes the parts in order, replacing the file whole, into folders it makes", async () => {
    const dir = tempDir();
    const path = join(dir, "deep", "er", "snapshot.jsonl");
    await write(path, parts);
    expect(readFileSync(path).equals(whole)).toBe(true);
    await write(path, [Buffer.from("second")]);
    expect(readFileSync(path, "utf8")).toBe("second");
    expect(temps(join(dir, "deep", "er"))).toEqual([]);
  });

  it("removes its temp file when writing fails halfway, and leaves the target as it was", async () => {
    const dir = tempDir();
    const path = join(dir, "snapshot.jsonl");
    writeFileSync(path, "before");
    // A part that cannot be written stands in for a full disk after the first part.
    await expect(write(path, [Buffer.from("first part"), { length: 5 } as unknown as Uint8Array])).rejects.toThrow();
    expect(temps(dir)).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe("before");
  });

  it("leaves neither a temp file nor a changed target when it cannot finish", async () => {
    const dir = tempDir();
    // A folder where the file should go: the final rename fails.
    mkdirSync(join(dir, "taken"));
    writeFileSync(join(dir, "taken", "inside.md"), "keep");
    await expect(write(join(dir, "taken"), parts)).rejects.toThrow();
    expect(temps(dir)).toEqual([]);
    expect(readFileSync(join(dir, "taken", "inside.md"), "utf8")).toBe("keep");
  });
});

describe("rewriteText", () => {
  const readIfAny = (path: string) => (): string | undefined => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  };

  it("creates a missing file, changes an existing one, and leaves one the edit does not change", () => {
    const path = join(tempDir(), "MEMORY.md");
    expect(rewriteText(path, readIfAny(path), (t) => `${t ?? ""}one\n`)).toBe(true);
    expect(rewriteText(path, readIfAny(path), (t) => `${t ?? ""}two\n`)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    expect(rewriteText(path, readIfAny(path), (t) => t)).toBe(false);
    expect(rewriteText(path, readIfAny(path), () => undefined)).toBe(false);
    expect(temps(join(path, ".."))).toEqual([]);
  });

  it("makes its change to a file that appeared or changed since it was read, and gives up when it changes on every try", () => {
    const path = join(tempDir(), "synonyms.md");
    let first = true;
    // Read as missing; the person's file appears before the write: it is read again, not replaced.
    const read = (): string | undefined => (first ? ((first = false), writeFileSync(path, "theirs\n"), undefined) : readFileSync(path, "utf8"));
    expect(rewriteText(path, read, (t) => `${t ?? ""}ours\n`)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("theirs\nours\n");
    let n = 0;
    // A file saved again after every read: never written over, and the caller is told.
    const busy = (): string => (writeFileSync(path, `save ${++n}\n`), `save ${n - 1}\n`);
    expect(() => rewriteText(path, busy, (t) => `${t}ours\n`)).toThrow(ChangedSince);
    expect(readFileSync(path, "utf8")).toBe(`save ${n}\n`);
  });
});
