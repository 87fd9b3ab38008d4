/** Where enrich reads cards and writes their hints: the disk for the bridge, Obsidian for the plugin. */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setFrontmatter, type FrontmatterValue } from "../card/frontmatter-edit";
import type { VaultMemoryConfig } from "../config";
import { isCard } from "../vault/scan";
import { writeFileAtomic } from "../io/atomic";
import { listMarkdown } from "../vault/scan";

export interface CardStore {
  /** Vault-relative paths of the cards in the memory folder. */
  list(): Promise<string[]>;
  read(path: string): Promise<string>;
  /**
   * Sets these frontmatter properties and nothing else. `expected` is the text they were made
   * for: a card changed since then (the person typing in it while the LLM answered) is left as it
   * is, for the next run, and "changed" is returned.
   */
  setProperties(path: string, expected: string, fields: Readonly<Record<string, FrontmatterValue>>): Promise<"written" | "changed">;
}

/** The vault's files, written atomically; a path outside the memory folder is refused. */
export function diskStore(vault: string, config: VaultMemoryConfig): CardStore {
  return {
    list: async () => listMarkdown(vault, (p) => isCard(p, config)).map((f) => f.path),
    read: async (path) => readFileSync(join(vault, path), "utf8"),
    setProperties: async (path, expected, fields) => {
      if (!isCard(path, config)) throw new Error(`${path} is not a card in the memory folder`);
      const abs = join(vault, path);
      if (!existsSync(abs)) return "changed";
      const text = readFileSync(abs, "utf8");
      if (text !== expected) return "changed";
      writeFileAtomic(abs, setFrontmatter(text, fields));
      return "written";
    },
  };
}
