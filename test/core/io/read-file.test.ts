import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileRefused, readRegularFile } from "../../../src/core/io/read-file";
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
