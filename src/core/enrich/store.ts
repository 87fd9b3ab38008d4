/** Where enrich reads cards and writes their hints: the disk for the bridge, Obsidian for the plugin. */

import { join } from "node:path";
import { setFrontmatter, type FrontmatterValue } from "../card/frontmatter-edit";
import type { VaultMemoryConfig } from "../config";
import { isCard } from "../vault/scan";
import { ChangedSince, replaceOrGiveBack } from "../io/atomic";
import { withCardsLock } from "./cards-lock";
import { listMarkdown, readNote } from "../vault/scan";
import { FileRefused } from "../io/read-file";

export interface CardStore {
  /** Vault-relative paths of the cards in the memory folder. */
  list(): Promise<string[]>;
  /** Throws, saying why, for a card that cannot be read (enrich skips it). */
  read(path: string): Promise<string>;
  /**
   * Sets these frontmatter properties and nothing else. `expected` is the text they were made
   * for: a card changed since then (the person typing in it while the LLM answered) is left as it
   * is, for the next run, and "changed" is returned.
   */
  setProperties(path: string, expected: string, fields: Readonly<Record<string, FrontmatterValue>>): Promise<"written" | "changed">;
}

/**
 * The vault's files, written atomically; a path outside the memory folder is refused. A card's
 * name that is not a card (a FIFO, a link, a huge file) is listed, and reading it throws why, so
 * that enrich reports it among the cards it skipped.
 */
export function diskStore(vault: string, config: VaultMemoryConfig): CardStore {
  const notRead = new Map<string, string>();
  return {
    list: async () => {
      const listed = listMarkdown(
        vault,
        (p) => isCard(p, config),
        (s) => notRead.set(s.path, s.reason),
      ).map((f) => f.path);
      return [...listed, ...notRead.keys()].sort();
    },
    read: async (path) => {
      const why = notRead.get(path);
      if (why !== undefined) throw new Error(why);
      return readNote(join(vault, path));
    },
    setProperties: async (path, expected, fields) => {
      if (!isCard(path, config)) throw new Error(`${path} is not a card in the memory folder`);
      const abs = join(vault, path);
      // Under the card lock that write_card, edit_card and the digest take, and only while the
      // file still holds what was read: a section written or a person's save in between stays.
      return withCardsLock(vault, () => {
        let text: string;
        try {
          text = readNote(abs);
        } catch (err) {
          if (err instanceof FileRefused && err.why === "missing") return "changed";
          throw err;
        }
        if (text !== expected) return "changed";
        try {
          replaceOrGiveBack(abs, text, setFrontmatter(text, fields));
        } catch (err) {
          if (err instanceof ChangedSince) return "changed";
          throw err;
        }
        return "written";
      });
    },
  };
}
