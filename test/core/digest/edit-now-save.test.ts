/**
 * edit_card when the person saves the card just as it is replaced: the save stays, the edit is
 * refused. The save is made from inside the replace (node:fs's linkSync, which it calls between
 * its comparison and its rename), so the timing is the test's, not the machine's.
 */

import * as fs from "node:fs";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { cardHash, editCardNow } from "../../../src/core/digest/edit-now";
import { CardRefused } from "../../../src/core/digest/write-now";
import { tempDir } from "../../helpers";

const saveBeforeLink: { path?: string; text?: string } = {};
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const linkSync: typeof real.linkSync = (from, to) => {
    if (saveBeforeLink.path !== undefined && String(from) === saveBeforeLink.path) {
      // The person's editor writes the file in place, after the comparison.
      real.writeFileSync(saveBeforeLink.path, saveBeforeLink.text ?? "");
      saveBeforeLink.path = undefined;
    }
    real.linkSync(from, to);
  };
  return { ...real, linkSync, default: { ...real, linkSync } };
});

const CARD = [
  "---",
  "name: Busy timeout",
  "description: SQLite database is locked under load",
  "source: vault-memory",
  "---",
  "# Busy timeout",
  "",
  "## Fix",
  "",
  "Set busy_timeout.",
  "",
].join("\n");

describe("edit_card as the person saves the card", () => {
  it("keeps the person's save and refuses the edit", () => {
    const vault = tempDir();
    mkdirSync(join(vault, "debugging"), { recursive: true });
    const abs = join(vault, "debugging", "busy.md");
    writeFileSync(abs, CARD);
    const theirs = CARD.replace("Set busy_timeout.", "Set busy_timeout to 5000.\n\nThe person's own line.");
    saveBeforeLink.path = abs;
    saveBeforeLink.text = theirs;
    expect(() =>
      editCardNow(
        { path: "debugging/busy.md", hash: cardHash(CARD), section: "Fix", text: "Use WAL mode.", personAsked: true },
        { vault, config: defaultConfig() },
      ),
    ).toThrow(CardRefused);
    expect(saveBeforeLink.path).toBeUndefined();
    expect(readFileSync(abs, "utf8")).toBe(theirs);
  });
});
