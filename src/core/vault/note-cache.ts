/** The vault as one run sees it: listed once, each note read and parsed once, again only after it changed on disk. */

import { readFileSync } from "node:fs";
import { parseCard, type Card } from "../card/card";
import { listMarkdown, type NoteFile } from "./scan";

interface Held {
  mtime: number;
  size: number;
  text: string;
  card?: Card;
}

/**
 * The digest looks at the vault five times (the related heading, the similar cards for the LLM,
 * the index pages, the snapshot, lint); each used to walk and read every note. With this it walks
 * the vault once, and once more after the night's writes, and reads a note again only when it
 * changed.
 */
export class NoteCache {
  private files: NoteFile[] | undefined;
  private readonly held = new Map<string, Held>();
  /** Notes read from disk so far: a test counts them. */
  reads = 0;

  constructor(readonly vault: string) {}

  /** Every markdown note outside dot folders that `keep` accepts, in path order. */
  list(keep: (path: string) => boolean = () => true): NoteFile[] {
    this.files ??= listMarkdown(this.vault);
    return this.files.filter((f) => keep(f.path));
  }

  text(f: NoteFile): string {
    return this.hold(f).text;
  }

  card(f: NoteFile): Card {
    const h = this.hold(f);
    h.card ??= parseCard(f.path, h.text, f.mtime);
    return h.card;
  }

  /**
   * Lists the vault again after writes (the night's cards, links and hints): the walk and its stats
   * are repeated, but a note is read again only if its size or time changed.
   */
  refresh(): void {
    this.files = undefined;
  }

  private hold(f: NoteFile): Held {
    const h = this.held.get(f.path);
    if (h && h.mtime === f.mtime && h.size === f.size) return h;
    const fresh: Held = { mtime: f.mtime, size: f.size, text: readFileSync(f.abs, "utf8") };
    this.reads++;
    this.held.set(f.path, fresh);
    return fresh;
  }
}
