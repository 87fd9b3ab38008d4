/** The vault as one run sees it: listed once, each note read and parsed once, again only after it changed on disk. */

import { parseCard, type Card } from "../card/card";
import { listMarkdown, readNote, type NoteFile, type SkippedNote } from "./scan";

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
  /** Why a note could not be read, by path: it is left out of every listing after that. */
  private readonly refused = new Map<string, string>();
  private readonly skips = new Map<string, string>();
  /** Notes read from disk so far: a test counts them. */
  reads = 0;
  /** Epoch ms just before the current listing was made (see ScanInfo). */
  listedAt = 0;

  constructor(readonly vault: string) {}

  /** Every markdown note outside dot folders that `keep` accepts, in path order, less those that could not be read. */
  list(keep: (path: string) => boolean = () => true): NoteFile[] {
    if (!this.files) {
      this.listedAt = Date.now();
      this.files = listMarkdown(this.vault, undefined, (s) => this.skips.set(s.path, s.reason));
    }
    return this.files.filter((f) => !this.refused.has(f.path) && keep(f.path));
  }

  /** What was named like a note and not read, and why, so far: for the run's report or log. */
  get skipped(): SkippedNote[] {
    return [...this.skips].map(([path, reason]) => ({ path, reason }));
  }

  /** The note's text; throws, saying why, for one that cannot be read (and skips it from then on). */
  text(f: NoteFile): string {
    return this.hold(f).text;
  }

  card(f: NoteFile): Card {
    const h = this.hold(f);
    h.card ??= parseCard(f.path, h.text, f.mtime);
    return h.card;
  }

  /** The cards of `files` that can be read; the others are skipped, with the reason kept in `skipped`. */
  cards(files: readonly NoteFile[]): Card[] {
    return this.readable(files, (f) => this.card(f));
  }

  /** The texts of `files` that can be read, as cards() does. */
  texts(files: readonly NoteFile[]): string[] {
    return this.readable(files, (f) => this.text(f));
  }

  private readable<T>(files: readonly NoteFile[], read: (f: NoteFile) => T): T[] {
    const out: T[] = [];
    for (const f of files) {
      try {
        out.push(read(f));
      } catch {
        /* kept in skipped */
      }
    }
    return out;
  }

  /** The note's text as this run last read it, without looking at the disk again; undefined if it was never read. */
  lastRead(path: string): string | undefined {
    return this.held.get(path)?.text;
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
    let text: string;
    try {
      text = readNote(f.abs);
    } catch (err) {
      // Swapped for something else since the walk, or unreadable: never read again this run.
      const reason = `not read: ${err instanceof Error ? err.message : String(err)}`;
      this.refused.set(f.path, reason);
      this.skips.set(f.path, reason);
      throw err;
    }
    const fresh: Held = { mtime: f.mtime, size: f.size, text };
    this.reads++;
    this.held.set(f.path, fresh);
    return fresh;
  }
}
