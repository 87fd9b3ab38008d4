/**
 * The files the digest and the person both write (MEMORY.md outside its markers, the synonyms
 * note): a save of the person's that lands just as the digest writes one is kept, and the digest's
 * change is made to it. The save is made from inside the write (node:fs's renameSync onto the
 * file, which every replace ends with), so the timing is the test's, not the machine's.
 */

import * as fs from "node:fs";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { rewriteIndexPages } from "../../../src/core/digest/run";
import { addSynonymGroups } from "../../../src/core/digest/synonyms";
import { SAMPLE_VAULT, copyVault } from "../../helpers";

const PERSONS_LINE = "A line the person typed as the night wrote.\n";
// The file a person saves into, in place, just before the next rename onto it.
const saveInto: { path?: string } = {};
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const renameSync: typeof real.renameSync = (from, to) => {
    if (saveInto.path !== undefined && String(to) === saveInto.path) {
      real.writeFileSync(saveInto.path, PERSONS_LINE + real.readFileSync(saveInto.path, "utf8"));
      saveInto.path = undefined;
    }
    real.renameSync(from, to);
  };
  return { ...real, renameSync, default: { ...real, renameSync } };
});

describe("a person's save that lands as the digest writes", () => {
  it("is kept in MEMORY.md, with the night's index", () => {
    const vault = copyVault(SAMPLE_VAULT, "Saves");
    const memory = join(vault, "MEMORY.md");
    writeFileSync(memory, "# My memory\n\nMy own notes, above the index.\n");
    saveInto.path = memory;
    rewriteIndexPages(vault, defaultConfig());
    expect(saveInto.path).toBeUndefined();
    const text = readFileSync(memory, "utf8");
    expect(text).toContain(PERSONS_LINE);
    expect(text).toContain("My own notes, above the index.");
    expect(text).toContain("<!-- vault-memory:index:start -->");
  });

  it("is kept in the synonyms note, with the groups added", () => {
    const vault = copyVault(SAMPLE_VAULT, "Saves");
    const note = join(vault, "meta", "synonyms.md");
    fs.mkdirSync(join(vault, "meta"), { recursive: true });
    writeFileSync(note, "# Synonyms\n\n- car, automobile\n");
    saveInto.path = note;
    expect(addSynonymGroups(vault, "meta/synonyms.md", [["kettle", "boiler"]], false)).toEqual([["kettle", "boiler"]]);
    expect(saveInto.path).toBeUndefined();
    const text = readFileSync(note, "utf8");
    expect(text).toContain(PERSONS_LINE);
    expect(text).toContain("- car, automobile");
    expect(text).toContain("kettle, boiler");
  });
});
