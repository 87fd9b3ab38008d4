/**
 * Enrich writing a card's hints while the card is written by someone else: it writes under the
 * card lock that write_card, edit_card and the digest take, and never over a save that lands as
 * it writes. The save is made from inside the write (node:fs's renameSync onto the card), so the
 * timing is the test's, not the machine's.
 */

import * as fs from "node:fs";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { diskStore } from "../../../src/core/enrich/store";
import { vaultFiles } from "../../../src/core/paths";
import { tempDir } from "../../helpers";

const atRename: { card?: string; save?: string; lockHeld?: boolean } = {};
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const renameSync: typeof real.renameSync = (from, to) => {
    if (atRename.card !== undefined && String(to) === atRename.card) {
      atRename.lockHeld = real.existsSync(join(String(to), "..", "..", ".vault-memory", "cards.lock"));
      // A person's editor writes the card in place just before enrich's rename.
      if (atRename.save !== undefined) real.writeFileSync(atRename.card, atRename.save);
      atRename.card = undefined;
    }
    real.renameSync(from, to);
  };
  return { ...real, renameSync, default: { ...real, renameSync } };
});

const CARD = ["---", "name: Busy timeout", "description: SQLite database is locked under load", "---", "# Busy timeout", "", "Set busy_timeout.", ""].join(
  "\n",
);

function vault(): { vault: string; abs: string } {
  const v = tempDir();
  mkdirSync(join(v, "debugging"), { recursive: true });
  const abs = join(v, "debugging", "busy.md");
  writeFileSync(abs, CARD);
  return { vault: v, abs };
}

describe("enrich writing a card's hints", () => {
  it("writes under the card lock", async () => {
    const { vault: v, abs } = vault();
    atRename.card = abs;
    atRename.save = undefined;
    expect(await diskStore(v, defaultConfig()).setProperties("debugging/busy.md", CARD, { questions: ["why is sqlite locked?"] })).toBe("written");
    expect(atRename.lockHeld).toBe(true);
    expect(readFileSync(abs, "utf8")).toContain("why is sqlite locked?");
    // Released after.
    expect(existsSync(vaultFiles.cardsLock(v))).toBe(false);
  });

  it("keeps a save that lands as it writes, and leaves the hints for the next run", async () => {
    const { vault: v, abs } = vault();
    const theirs = CARD.replace("Set busy_timeout.", "Set busy_timeout.\n\nThe person's own line.");
    atRename.card = abs;
    atRename.save = theirs;
    expect(await diskStore(v, defaultConfig()).setProperties("debugging/busy.md", CARD, { questions: ["why is sqlite locked?"] })).toBe("changed");
    expect(readFileSync(abs, "utf8")).toBe(theirs);
  });
});
