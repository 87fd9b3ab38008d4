/**
 * A card written at once, outside the nightly run: the MCP server's write_card. What Claude asks
 * to write is a model's output like the digest's answers, so it is sanitised, then checked by the
 * digest's own rules (answer.ts) and written by its own code (apply.ts); the snapshot is then
 * brought up to it, so that the next prompt's recall finds it. The nightly digest later treats it
 * as any other card.
 */

import { closeSync, existsSync, readSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { hasFrontmatterBlock } from "../card/card";
import { LinkResolver, linkTarget } from "../card/links";
import { CARD_TYPES, FOLDER_OF_TYPE } from "../card/schema";
import { checkBeforeCreate, existingCards, type DuplicateOf } from "./dedupe";
import { slugify } from "../card/slug";
import { isCard, recallRulesOf, type VaultMemoryConfig } from "../config";
import { embedVault } from "../embed/embed-vault";
import { buildIndexFromDisk } from "../index/build-from-disk";
import { FileRefused, openRegularFile } from "../io/read-file";
import { vaultFiles } from "../paths";
import { sanitize, whatSanitizeRemoves } from "../privacy/redact";
import { similarCards } from "../recall/similar";
import { meaningTwin } from "../recall/similar-meaning";
import { SnapshotError, SnapshotReader } from "../snapshot/read";
import { refreshSnapshot } from "../snapshot/refresh";
import { writeSnapshot } from "../snapshot/write";
import { NoteCache } from "../vault/note-cache";
import { AnswerError } from "../llm/answer";
import { MAX_BODY_CHARS, safePath, validateAnswer, type DigestAction } from "./answer";
import { applyAction, vaultRelatedHeading, withCardsLock } from "./apply";

export const MAX_TITLE_CHARS = 120;
export const MAX_DESCRIPTION_CHARS = 500;
export const MAX_TAGS = 10;
export const MAX_RELATED = 10;
export { MAX_BODY_CHARS };
/** The types a card may be written with: one per card folder. */
export const WRITABLE_TYPES = CARD_TYPES;
// A card this large is a dump, not a note; and the whole of it is read to be extended.
const MAX_EXTEND_BYTES = 1 << 20;

export interface CardRequest {
  title?: string;
  description?: string;
  type?: string;
  body?: string;
  tags?: readonly string[];
  /** The project a new card is filed under; "" for none, absent for the current one. */
  project?: string;
  /** Names or paths of existing cards to link to. */
  related?: readonly string[];
  /** An existing card to extend, vault-relative (or absolute inside the vault); absent to create one. */
  path?: string;
}

export interface CardWriteContext {
  vault: string;
  config: VaultMemoryConfig;
  /** The session writing, for the card's source; "" when not known. */
  sessionId: string;
  /** The project a new card gets when the request names none. */
  project: string;
  now?: Date;
}

export interface CardWritten {
  /** "already": nothing written, since `path` holds what was asked already (duplicateOf says how much). */
  action: "created" | "extended" | "already";
  /** Vault-relative. */
  path: string;
  /** Cards the card links to; they are not changed (see ApplyContext.linkBack). */
  linked: string[];
  /** Related names no card has. */
  unknown: string[];
  /** What sanitising took out, in words ("secrets", "private passages", "Vault Memory's own recall lines"); empty when nothing. */
  removed: string[];
  /** How the snapshot was brought up to the card: "overlay" or "full"; otherwise why it was not. */
  snapshot: string;
  /** Set when a new card was asked for that the vault holds already (see dedupe.ts). */
  duplicateOf?: DuplicateOf;
}

/** A request that cannot be written as given; nothing was written. */
export class CardRefused extends Error {}

export async function writeCardNow(req: CardRequest, ctx: CardWriteContext): Promise<CardWritten> {
  const { vault, config } = ctx;
  bounded(req);
  // Before anything is checked or written: secrets and private passages never reach a card.
  const clean = (s: string | undefined): string => (s === undefined ? "" : sanitize(s).trim());
  const removed = removedFrom([req.title, req.description, req.body, req.project, ...(req.tags ?? []), ...(req.related ?? [])]);
  const related = (req.related ?? []).map(clean).filter(Boolean);
  // Checked before the lock is taken: a request refused for its fields waits for no one.
  const fields = req.path === undefined ? createFields(req, clean, ctx.project) : undefined;
  const title = req.path === undefined ? "" : oneLine(clean(req.title), "title", MAX_TITLE_CHARS);
  // Asked before the lock, since the embedding server may take a moment: the card this one means, in other words.
  const twin =
    fields && config.embed.enabled
      ? await meaningTwin(vault, config.embed, `${fields.title}\n${fields.frontmatter.description}\n${clean(req.body)}`)
      : undefined;

  // Listing, composing, writing and the snapshot's update, one writer at a time: another
  // session's card or section written in between would otherwise be lost, or missed by recall.
  const done = withCardsLock(vault, () => {
    const notes = new NoteCache(vault);
    const cards = notes.list((p) => isCard(p, config)).map((f) => f.path);
    const heading = vaultRelatedHeading(notes, config);
    const resolver = new LinkResolver(cards);
    const unknown = related.filter((r) => resolver.resolve(linkTarget(r)) === undefined);
    const offered = new Map<string, number>();
    let action: DigestAction;
    let hadFrontmatter = false;
    if (req.path !== undefined) {
      const target = cardToChange(vault, config, req.path);
      offered.set(target.path, target.mtime);
      hadFrontmatter = target.hadFrontmatter;
      const section = `${title ? `### ${title}\n\n` : ""}${clean(req.body)}`;
      action = validated({ action: "append", target: target.path, section, related });
    } else {
      const c = fields!;
      action = validated({ action: "create", folder: c.folder, fileName: slugify(c.title), frontmatter: c.frontmatter, body: clean(req.body), related });
      if (action.action === "create" && config.memoryFolder) action.folder = `${config.memoryFolder.replace(/^\/+|\/+$/g, "")}/${action.folder}`;
      // Not an orphan: with no related card named, it links to the most similar one, as the digest's do.
      const best = mostSimilar(vault, config, notes, `${c.title}\n${c.frontmatter.description}\n${clean(req.body)}`);
      if (best) offered.set(best, 0);
    }
    // Check before creating: a card the vault holds already is extended with what it lacks, or nothing is written.
    const { duplicateOf, ...checked } = action.action === "create" ? checkBeforeCreate(action, existingCards(notes, config), [], twin) : { action };
    action = checked.action;
    if (duplicateOf && action.action === "skip") return { applied: undefined, duplicateOf, unknown, notes, snapshot: "current" };
    if (duplicateOf) {
      const target = cardToChange(vault, config, duplicateOf.path);
      offered.set(target.path, target.mtime);
      hadFrontmatter = target.hadFrontmatter;
    }
    if (action.action !== "skip") insideVault(vault, action.action === "create" ? action.folder : action.target);
    let applied;
    try {
      applied = applyAction(action, {
        vault,
        cards,
        notes: notes.list().map((f) => f.path),
        offered,
        sessionId: ctx.sessionId,
        date: (ctx.now ?? new Date()).toISOString().slice(0, 10),
        dryRun: false,
        synonymsNote: "",
        hintsProperty: config.index.hintsProperty,
        relatedHeading: heading,
        linkBack: false,
        checkOffered: false,
        hadFrontmatter: () => hadFrontmatter,
      });
    } catch (err) {
      if (err instanceof AnswerError) throw new CardRefused(toolWords(err.message));
      throw err;
    }
    return { applied, duplicateOf, unknown, notes, ...snapshotAfterWrite(vault, config, notes) };
  });
  const { applied, duplicateOf, unknown, notes } = done;
  if (!applied) return { action: "already", path: duplicateOf?.path ?? "", linked: [], unknown, removed, snapshot: "current", duplicateOf };
  const snapshot = await withVectors(vault, config, notes, done.snapshot, "headerSum" in done ? done.headerSum : undefined);
  return {
    action: applied.action === "created" ? "created" : "extended",
    path: applied.path,
    linked: applied.linked,
    unknown,
    removed,
    snapshot,
    ...(duplicateOf ? { duplicateOf } : {}),
  };
}

/** What sanitising takes out of the request's fields, in words. */
function removedFrom(raw: readonly (string | undefined)[]): string[] {
  const found = raw.filter((s): s is string => s !== undefined).map(whatSanitizeRemoves);
  return [
    ...(found.some((f) => f.secrets) ? ["secrets"] : []),
    ...(found.some((f) => f.private) ? ["private passages"] : []),
    ...(found.some((f) => f.recall) ? ["Vault Memory's own recall lines"] : []),
  ];
}

/** After a whole snapshot was written, the cards' vectors for it, from the cache; the snapshot's state, or why the vectors failed. */
async function withVectors(vault: string, config: VaultMemoryConfig, notes: NoteCache, snapshot: string, headerSum: string | undefined): Promise<string> {
  if (headerSum === undefined || !config.embed.enabled) return snapshot;
  try {
    await embedVault(vault, config, headerSum, { notes, offline: true });
    return snapshot;
  } catch (err) {
    return `not updated (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Every field within its bound as given, before any work is done on it. */
function bounded(req: CardRequest): void {
  const over = (s: string | undefined, max: number): boolean => s !== undefined && s.length > max;
  if (over(req.body, MAX_BODY_CHARS))
    throw new CardRefused(`body is ${req.body?.length} characters; at most ${MAX_BODY_CHARS}. Keep what a later session needs, not the transcript.`);
  if (over(req.title, MAX_TITLE_CHARS)) throw new CardRefused(`title is ${req.title?.length} characters; at most ${MAX_TITLE_CHARS}.`);
  if (over(req.description, MAX_DESCRIPTION_CHARS))
    throw new CardRefused(`description is ${req.description?.length} characters; at most ${MAX_DESCRIPTION_CHARS}.`);
  if (over(req.project, 100)) throw new CardRefused("project is longer than 100 characters.");
  if ((req.tags?.length ?? 0) > MAX_TAGS || (req.tags ?? []).some((t) => t.length > 100))
    throw new CardRefused(`tags: at most ${MAX_TAGS}, each at most 100 characters.`);
  if ((req.related?.length ?? 0) > MAX_RELATED || (req.related ?? []).some((r) => r.length > 300))
    throw new CardRefused(`related: at most ${MAX_RELATED} cards, each named in at most 300 characters.`);
}

/** A new card's folder, title and frontmatter, sanitised and bounded. */
function createFields(req: CardRequest, clean: (s: string | undefined) => string, currentProject: string) {
  const title = oneLine(clean(req.title), "title", MAX_TITLE_CHARS);
  if (!title) throw new CardRefused("title is empty: a new card needs a title, a description, a type and a body (or give path to extend a card).");
  const description = oneLine(clean(req.description), "description", MAX_DESCRIPTION_CHARS);
  if (!description) throw new CardRefused("description is empty: give one line that says when the card helps.");
  const type = clean(req.type).toLowerCase();
  if (!WRITABLE_TYPES.includes(type)) throw new CardRefused(`type must be one of ${WRITABLE_TYPES.join(", ")}${type ? `, not "${type.slice(0, 40)}"` : ""}.`);
  // Obsidian's tags are single words: "#launchd path" would be two tags, or none.
  const tags = [...new Set((req.tags ?? []).map((t) => clean(t).replace(/^#+/, "").replace(/\s+/g, "-")).filter(Boolean))];
  const project = oneLine(req.project === undefined ? currentProject : clean(req.project), "project", 100);
  return {
    title,
    folder: FOLDER_OF_TYPE[type],
    // A card with no tags fails lint; its type is the one tag that is always true.
    frontmatter: { name: title, description, type, tags: tags.length > 0 ? tags : [type], ...(project ? { project } : {}) },
  };
}

/** The digest's checks of an answer, with the tool's names for its fields. */
function validated(answer: Record<string, unknown>): DigestAction {
  try {
    return validateAnswer(answer);
  } catch (err) {
    if (err instanceof AnswerError) throw new CardRefused(toolWords(err.message));
    throw err;
  }
}

const toolWords = (message: string): string =>
  message
    .replace(/frontmatter\.name/g, "title")
    .replace(/frontmatter\.(description|tags|project)/g, "$1")
    .replace(/\bthe (body|section)\b/g, "body")
    .replace(/\btarget\b/g, "path");

function oneLine(s: string, what: string, max: number): string {
  if (/[\r\n\u0085\u2028\u2029]/.test(s)) throw new CardRefused(`${what} spans several lines; it must be one line.`);
  if (s.length > max) throw new CardRefused(`${what} is ${s.length} characters; at most ${max}.`);
  return s;
}

/**
 * The card `given` names, if it may be extended: a regular file in the memory folder, reached by
 * no link, not an overview or vault page (the digest rewrites those), UTF-8 (so that the text
 * written back is the person's, byte for byte), with its text and time then, so a change before the write is seen.
 */
export function cardToChange(
  vault: string,
  config: VaultMemoryConfig,
  given: string,
  verb = "extended",
): { path: string; abs: string; mtime: number; hadFrontmatter: boolean; text: string } {
  const text = given.trim();
  if (!text || text.length > 1000 || text.includes("\0")) throw new CardRefused("path is not a card path: give it as search_memory or recent_cards listed it.");
  const root = resolve(vault);
  const abs = isAbsolute(text) ? resolve(text) : resolve(root, text.replace(/\\/g, "/"));
  const rel = relative(root, abs).split(sep).join("/");
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel))
    throw new CardRefused(`${text} is outside the vault; only cards in the memory can be ${verb === "extended" ? "extended" : "changed"}.`);
  try {
    safePath(rel);
  } catch (err) {
    throw new CardRefused(toolWords((err as Error).message));
  }
  const inMemory = config.memoryFolder ? rel.slice(config.memoryFolder.replace(/^\/+|\/+$/g, "").length + 1) : rel;
  if (!isCard(rel, config) || /^(moc|meta)\//.test(inMemory)) {
    throw new CardRefused(
      `${rel} is not a memory card that can be ${verb} (only cards${config.memoryFolder ? ` in ${config.memoryFolder}/` : ""}, outside hidden, excluded, overview and meta folders).`,
    );
  }
  insideVault(vault, rel);
  let fd: number | undefined;
  try {
    // Not following a link, and not blocking on a FIFO; regular files only.
    const opened = openRegularFile(abs, { noFollow: true });
    fd = opened.fd;
    if (opened.st.size > MAX_EXTEND_BYTES) throw new CardRefused(`${rel} is over ${MAX_EXTEND_BYTES >> 20} MB; it is not ${verb}.`);
    const bytes = Buffer.alloc(opened.st.size);
    for (let got = 0; got < bytes.length;) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) throw new CardRefused(`${rel} is not UTF-8 text; it is not ${verb}, so that none of it is changed.`);
    return { path: rel, abs, mtime: opened.st.mtimeMs, hadFrontmatter: hasFrontmatterBlock(text), text };
  } catch (err) {
    if (err instanceof FileRefused) {
      throw new CardRefused(
        err.why === "missing"
          ? verb === "extended"
            ? `${rel} does not exist: to make a new card, leave path out.`
            : `${rel} does not exist.`
          : err.why === "not-regular"
            ? `${rel} is not a regular file; it is not ${verb}.`
            : `${rel} is a link or cannot be read; it is not ${verb}.`,
      );
    }
    throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Refuses a vault path reached through a link: the nearest part of it that exists must be where
 * the vault's own folders put it, so a linked folder cannot carry a write out of the vault.
 */
function insideVault(vault: string, rel: string): void {
  let realRoot: string;
  try {
    realRoot = realpathSync(vault);
  } catch {
    throw new CardRefused(`the vault ${vault} cannot be found.`);
  }
  let at = join(vault, rel);
  while (!existsSync(at) && at !== dirname(at)) at = dirname(at);
  const want = join(realRoot, relative(resolve(vault), resolve(at)));
  let real: string;
  try {
    real = realpathSync(at);
  } catch {
    throw new CardRefused(`${rel} cannot be reached.`);
  }
  if (real !== want) throw new CardRefused(`${rel} goes through a link (to ${real}); cards are written only in the vault's own folders.`);
}

/**
 * The card most like `text`, by the snapshot's index of the vault (the index built from the files
 * when there is no snapshot to read): the one a new card links to when none is named.
 */
function mostSimilar(vault: string, config: VaultMemoryConfig, notes: NoteCache, text: string): string | undefined {
  let reader: SnapshotReader | undefined;
  try {
    reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
  }
  try {
    const source = reader ?? buildIndexFromDisk(vault, config, undefined, notes).index;
    return similarCards(text, source, 1, config.recall.scoring.hintBonus)[0]?.path;
  } finally {
    reader?.close();
  }
}

// The card and the cards it links to, beside whatever else changed since the snapshot.
const MAX_OVERLAY_CARDS = 200;

/** What a write did to the snapshot: "overlay", "full" (then `headerSum`, for the vectors) or why not. */
export interface SnapshotUpdate {
  snapshot: string;
  headerSum?: string;
}

/**
 * After the lock: when the write made a whole snapshot, the cards' vectors for it (see
 * withVectors), or semantic recall would pass over vectors of the snapshot before; the
 * snapshot's state, in words.
 */
export function vectorsAfterWrite(vault: string, config: VaultMemoryConfig, update: SnapshotUpdate, notes = new NoteCache(vault)): Promise<string> {
  return withVectors(vault, config, notes, update.snapshot, update.headerSum);
}

/**
 * The snapshot brought up to the files, the cards just written included, under the card lock so
 * that two sessions' snapshots each hold the other's card: an overlay of the cards changed since
 * (see refresh.ts), or, when that cannot be, a whole snapshot, whose `headerSum` the cards'
 * vectors are then written for, from the cache (a card it lacks is found by its words until the
 * next index). A failure is said, not thrown: the card is written either way.
 */
export function snapshotAfterWrite(vault: string, config: VaultMemoryConfig, notes: NoteCache): SnapshotUpdate {
  try {
    const r = refreshSnapshot(vault, config, { maxChanged: MAX_OVERLAY_CARDS });
    if (r.kind === "overlay" || r.kind === "current") return { snapshot: "overlay" };
    notes.refresh();
    const { index, scan } = buildIndexFromDisk(vault, config, undefined, notes);
    const header = writeSnapshot(vaultFiles.snapshot(vault), index, recallRulesOf(config), new Date(), scan);
    return { snapshot: "full", headerSum: header.headerSum ?? "" };
  } catch (err) {
    return { snapshot: `not updated (${err instanceof Error ? err.message : String(err)})` };
  }
}
