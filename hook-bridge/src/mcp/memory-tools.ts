/** What the MCP server's tools do, apart from the protocol: search the memory, read a card, queue something to keep. */

import { claudeProjectsDir } from "../../../src/core/transcript/projects";
import { closeSync, existsSync, readdirSync, readSync, realpathSync } from "node:fs";
import { bridgeEntry, freshen } from "../freshen";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { hintsOf } from "../../../src/core/card/hints";
import { parseCard, type Card } from "../../../src/core/card/card";
import { isRetired } from "../../../src/core/card/schema";
import { CardRefused, vectorsAfterWrite, writeCardNow, type CardWritten } from "../../../src/core/digest/write-now";
import { archiveCardNow, cardHash, editCardNow } from "../../../src/core/digest/edit-now";
import { appendUsage } from "../../../src/core/recall/usage-log";
import { isCard, loadVaultConfig, type VaultMemoryConfig } from "../../../src/core/config";
import { appendLog } from "../../../src/core/io/log";
import { openRegularFile } from "../../../src/core/io/read-file";
import { vaultFiles } from "../../../src/core/paths";
import { resolveProject } from "../../../src/core/project";
import { listNotes, noteExists } from "../../../src/core/vault/scan";
import { DAY_MS } from "../../../src/core/snapshot/format";
import { sanitize } from "../../../src/core/privacy/redact";
import { captureSession, queueNote } from "../../../src/core/queue/capture";
import { isSafeSessionId } from "../../../src/core/queue/queue-store";
import { recall, recallWithMeaning, wantsRecall, type Recall, type RecallContext, type RecalledCard } from "../../../src/core/recall/recall";
import type { RecallRules } from "../../../src/core/recall/rules";
import type { SemanticRules } from "../../../src/core/embed/settings";
import { embedTexts } from "../../../src/core/embed/client";
import { PATIENT_EMBED_MS, trustedSemantic } from "../../../src/core/embed/settings";
import { searchVectors, vectorsPathOf } from "../../../src/core/embed/vectors";
import { projectTier } from "../../../src/core/recall/signals";
import { LiveSnapshot } from "../../../src/core/snapshot/live";
import { SnapshotError, type SnapshotReader } from "../../../src/core/snapshot/read";
import { termSpans, uniqueTerms, type TokenizerOptions } from "../../../src/core/text/tokenizer";
import { escapeControl, neutralizeMarkup, quotedLine } from "../../../src/core/text/visible";
import { QUOTED_NOTES } from "../../../src/core/text/recall-header";
import { whereToSetVault, type VaultLookup } from "../vault";

/** A tool's answer: text for the model, and whether it is a refusal or failure. */
export interface ToolAnswer {
  text: string;
  isError?: boolean;
}

// A question, not a document: past this the model is pasting, and the recall pipeline would only
// score the two ends of it anyway.
export const MAX_QUERY_CHARS = 2000;
export const DEFAULT_LIMIT = 8;
export const MAX_LIMIT = 25;
export const MAX_PROJECT_CHARS = 200;
export const MAX_PATH_CHARS = 1000;
// A tool result past Claude Code's inline limit reaches the model as a 2 KB preview: a card is
// read in pieces of this size, each naming the offset of the next.
export const MAX_READ_CHARS = 20_000;
// Cards are short notes; past this a note is a dump, read no further however it is paged.
const MAX_CARD_BYTES = 4 << 20;
export const DEFAULT_RECENT_DAYS = 7;
export const MAX_RECENT_DAYS = 365;
const MAX_RECENT_LISTED = 50;
// A runaway loop, not a session's worth of lessons: past this the server writes no more cards until it restarts.
export const MAX_WRITES_PER_SESSION = 25;
export const MAX_KEEP_CHARS = 4000;
export const MAX_CARD_HINT_CHARS = 200;
// A fifth of the hook's default floor: a search is asked for, so weaker matches are worth listing,
// but a card that shares one common word with the query is still noise.
const SEARCH_MIN_SCORE = 3;
// Only for the name and matched hint of a result; a card larger than this is shown by its file name.
const MAX_META_BYTES = 256 * 1024;

export interface MemoryToolsOptions {
  vault: VaultLookup;
  /** Person-facing advice for a missing vault (see vaultAdvice). */
  advice: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export class MemoryTools {
  private readonly vault: string | undefined;
  private readonly snapshot: LiveSnapshot | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly cwd: string;
  private writes = 0;
  // Writes one at a time: each continues the snapshot files the one before left.
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: MemoryToolsOptions) {
    this.vault = "vault" in opts.vault ? opts.vault.vault : undefined;
    this.snapshot = this.vault ? new LiveSnapshot(vaultFiles.snapshot(this.vault)) : undefined;
    this.env = opts.env ?? process.env;
    // Claude Code starts the server in the project and names it; the hooks' project rule applies.
    this.cwd = opts.cwd ?? (this.env.CLAUDE_PROJECT_DIR || process.cwd());
  }

  /**
   * Before a search, cards written since the snapshot by other means (an editor, a pull, a sync,
   * Claude's Write tool) are brought into it, as at a session start. A search is asked for now
   * and then, not on every prompt, so the listing's moment is spent each time.
   */
  private freshen(vault: string): void {
    try {
      freshen(vault, this.config(vault), (m) => this.log(m), bridgeEntry());
    } catch (err) {
      this.log(`could not bring the snapshot up to date: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The hook's fusion of words and meaning, with more time for the server than a prompt gets (a
   * search is asked for, not waited on by every prompt); words alone, and a log line, on failure.
   */
  private withMeaning(query: string, reader: SnapshotReader, rules: RecallRules, semantic: SemanticRules, vault: string, ctx: RecallContext): Promise<Recall> {
    return recallWithMeaning(query, reader, rules, vault, ctx, semantic, {
      asked: embedTexts(semantic, [sanitize(query)], Math.max(semantic.budgetMs, PATIENT_EMBED_MS)),
      search: (vector, _, words) => searchVectors(vectorsPathOf(vaultFiles.snapshot(vault)), reader.header.headerSum ?? "", semantic.model, vector, words),
      fellBack: (reason) => this.log(`search: semantic recall: ${reason}; words alone`),
    });
  }

  async search(input: { query?: unknown; limit?: unknown; project?: unknown; all_projects?: unknown }): Promise<ToolAnswer> {
    const query = typeof input.query === "string" ? input.query.trim() : "";
    if (!query) return refuse("query is empty: give the words to look for, e.g. the error message, tool or decision in question.");
    if (query.length > MAX_QUERY_CHARS)
      return refuse(`query is ${query.length} characters; at most ${MAX_QUERY_CHARS}. Ask with the key words, not the whole text.`);
    const limit = input.limit === undefined ? DEFAULT_LIMIT : input.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return refuse(`limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    if (input.project !== undefined && (typeof input.project !== "string" || input.project.length > MAX_PROJECT_CHARS)) {
      return refuse(`project must be a project name of at most ${MAX_PROJECT_CHARS} characters.`);
    }
    const vault = this.vault;
    if (!vault || !this.snapshot) return refuse(this.opts.advice);
    const project = typeof input.project === "string" && input.project.trim() ? input.project.trim() : resolveProject(this.cwd);
    this.freshen(vault);

    let cards: RecalledCard[];
    let hintsProperty: string;
    let tokenizer: TokenizerOptions;
    try {
      const reader = this.snapshot.current();
      const base = reader.header.rules;
      // The hook's rules, with its silence thresholds replaced: a floor, one matched word, no cut relative to the top card.
      const rules = { ...base, thresholds: { ...base.thresholds, minScore: SEARCH_MIN_SCORE, relativeToTop: 0, minMatchedTerms: 1, maxCards: limit } };
      const ctx = { project, pool: Math.max(limit, 12), allProjects: input.all_projects === true, exists: (path: string) => noteExists(vault, path) };
      // The server asked is this machine's own setting, never the snapshot's (see embed/settings.ts).
      const semantic = base.semantic && wantsRecall(query, reader) ? trustedSemantic(base.semantic, vault, undefined, this.env) : undefined;
      if (typeof semantic === "string") this.log(`search: semantic recall: ${semantic}; words alone`);
      const found =
        semantic && typeof semantic !== "string"
          ? await this.withMeaning(query, reader, rules, semantic, vault, ctx)
          : recall(query, reader, rules, vault, ctx);
      cards = bandOrder(found.cards, base.thresholds.relativeToTop, project);
      hintsProperty = reader.indexOptions.hintsProperty;
      tokenizer = reader.indexOptions.tokenizer;
    } catch (err) {
      if (err instanceof SnapshotError) {
        this.log(`search: ${err.message}`);
        return refuse(
          err.problem === "missing"
            ? `The memory has no index yet (${vaultFiles.snapshot(vault)} is missing). The person can open the vault in Obsidian with Vault Memory on, or run the bridge's index command; the next Claude Code session start also builds it.`
            : `The memory's index cannot be used (${err.message}). It is rebuilt at the next session start, or by the index command.`,
        );
      }
      throw err;
    }
    if (cards.length === 0) return { text: `No card in the memory matches "${clipLine(query, 80)}". Try other words (a tool, error, file or decision name).` };

    const config = this.config(vault);
    const said = termSpans(query, tokenizer);
    const lines = [
      `${cards.length} card${cards.length === 1 ? "" : "s"} for "${clipLine(query, 80)}", best first; open one with read_card(path). ${QUOTED_NOTES}`,
    ];
    // Each card on its own lines, whatever its path, name or description hold (see clipLine).
    cards.forEach((c, i) => {
      const card = this.cardMeta(vault, c.path, config);
      const facts = [
        clipLine(c.type, 80) || "note",
        c.project ? `project ${clipLine(c.project, 80)}` : "",
        c.updated > 0 ? `updated ${new Date(c.updated).toISOString().slice(0, 10)}` : "",
      ].filter(Boolean);
      lines.push(`${i + 1}. ${quotedLine(c.path)} — ${card?.name ? clipLine(card.name, 200) : quotedLine(c.path)} (${facts.join(", ")})`);
      if (c.description) lines.push(`   ${clipLine(c.description, 200)}`);
      const hint = c.hint && card ? hintsOf(card, hintsProperty)[c.hint.index] : undefined;
      if (hint) lines.push(`   answers: ${clipLine(hint, 200)}`);
      else if (card) {
        const inCard = new Set(uniqueTerms([card.name, card.description, card.body].join("\n"), tokenizer));
        const matched = wordsMatched(said, inCard).slice(0, 12);
        if (matched.length > 0) lines.push(`   matched: ${clipLine(matched.join(", "), 400)}`);
      }
    });
    return { text: lines.join("\n") };
  }

  read(input: { path?: unknown; offset?: unknown }): ToolAnswer {
    const given = typeof input.path === "string" ? input.path.trim() : "";
    if (!given) return refuse("path is empty: give a card's path as search_memory lists it, e.g. debugging/launchd-path.md.");
    if (given.length > MAX_PATH_CHARS || given.includes("\0")) return refuse("path is not a card path.");
    const offset = input.offset === undefined ? 0 : input.offset;
    if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0)
      return refuse("offset must be a whole number of characters from 0, as the last read_card answer gave it.");
    const vault = this.vault;
    if (!vault) return refuse(this.opts.advice);
    const config = this.config(vault);
    const found = cardFile(vault, given, config);
    if ("refused" in found) return refuse(found.refused);
    const read = readBounded(found.abs, MAX_CARD_BYTES);
    if ("error" in read) {
      this.log(`read_card: ${read.error}`);
      return refuse(`${escapeControl(found.rel)} could not be read: ${escapeControl(read.error.replace(found.abs, "it"))}.`);
    }
    // A multi-byte character cut at the byte bound is not half-shown.
    const text = read.cut ? read.text.replace(/\uFFFD$/, "") : read.text;
    if (offset > 0 && offset >= text.length)
      return refuse(`offset ${offset} is past the end of ${escapeControl(found.rel)}, which has ${text.length} characters.`);
    const start = pairStart(text, offset);
    const end = pieceEnd(text, start, MAX_READ_CHARS);
    const more = text.length - end;
    // The card's own lines are its text; the line that names it is one line, whatever its name holds.
    // A card opened is a card used: the night that archives unused cards counts it (retire.ts).
    if (start === 0) {
      try {
        appendUsage(vaultFiles.usageLog(vault), {
          t: new Date().toISOString(),
          session: this.env.CLAUDE_CODE_SESSION_ID ?? "",
          prompt: "read_card",
          cards: [{ path: found.rel, score: 0 }],
          ms: 0,
        });
      } catch {
        /* the log is a statistic: a read is never refused for it */
      }
    }
    // The hash edit_card asks for, of the whole card as it is on disk.
    const hash = read.cut ? "" : ` (hash ${cardHash(read.text)})`;
    const head =
      start === 0 && more === 0 ? `${quotedLine(found.rel)}${hash}` : `${quotedLine(found.rel)}${hash} (characters ${start} to ${end} of ${text.length})`;
    const tail = [
      ...(more > 0 ? [`[… ${more} more characters: call read_card with offset=${end}]`] : []),
      ...(read.cut && more === 0 ? [`[… the card is longer than ${MAX_CARD_BYTES >> 20} MB; the rest is not read]`] : []),
    ];
    // A tag in the card cannot pose as a section of what Claude reads; offsets stay the file's own.
    return { text: [head, QUOTED_NOTES, "", neutralizeMarkup(text.slice(start, end)), ...(tail.length ? ["", ...tail] : [])].join("\n") };
  }

  /** Cards changed in the last `days`, newest first, in the scope search_memory uses. */
  recent(input: { days?: unknown; project?: unknown; all_projects?: unknown }): ToolAnswer {
    const days = input.days === undefined ? DEFAULT_RECENT_DAYS : input.days;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > MAX_RECENT_DAYS)
      return refuse(`days must be a whole number from 1 to ${MAX_RECENT_DAYS}.`);
    if (input.project !== undefined && (typeof input.project !== "string" || input.project.length > MAX_PROJECT_CHARS)) {
      return refuse(`project must be a project name of at most ${MAX_PROJECT_CHARS} characters.`);
    }
    const vault = this.vault;
    if (!vault) return refuse(this.opts.advice);
    const config = this.config(vault);
    const project = typeof input.project === "string" && input.project.trim() ? input.project.trim() : resolveProject(this.cwd);
    const everywhere = input.all_projects === true || !project;
    const since = Math.floor((Date.now() - days * DAY_MS) / DAY_MS) * DAY_MS;
    // A card's content dates are never after its file's time, so older files need not be read.
    const found = listNotes(vault, config)
      .filter((f) => isCard(f.path, config) && f.mtime >= since)
      .flatMap((f) => {
        const card = this.cardMeta(vault, f.path, config, f.mtime);
        if (!card || isRetired(card.status)) return [];
        if (!everywhere && projectTier({ project: card.project }, project) > 1) return [];
        const when = changedAt(card);
        return when >= since ? [{ card, when }] : [];
      })
      .sort((a, b) => b.when - a.when || (a.card.path < b.card.path ? -1 : 1));
    const scope = everywhere ? "" : ` in ${clipLine(project, 80)} or no project`;
    if (found.length === 0) return { text: `No card${scope} was written or changed in the last ${days} day${days === 1 ? "" : "s"}.` };
    const lines = [
      `${found.length} card${found.length === 1 ? "" : "s"}${scope} written or changed in the last ${days} day${days === 1 ? "" : "s"}, newest first; open one with read_card(path). ${QUOTED_NOTES}`,
    ];
    for (const { card, when } of found.slice(0, MAX_RECENT_LISTED)) {
      const facts = [
        new Date(when).toISOString().slice(0, 10),
        clipLine(card.type, 80) || "note",
        card.project ? `project ${clipLine(card.project, 80)}` : "",
      ].filter(Boolean);
      lines.push(`- ${quotedLine(card.path)} — ${clipLine(card.description || card.name, 200)} (${facts.join(", ")})`);
    }
    if (found.length > MAX_RECENT_LISTED) lines.push(`… and ${found.length - MAX_RECENT_LISTED} more; ask for fewer days or one project.`);
    return { text: lines.join("\n") };
  }

  writeCard(input: WriteCardInput): Promise<ToolAnswer> {
    return this.serially("write_card", "written", (vault) => this.writeOne(vault, input));
  }

  private async writeOne(vault: string, input: WriteCardInput): Promise<ToolAnswer & { unchanged?: boolean }> {
    const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
    const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    const sessionId = this.env.CLAUDE_CODE_SESSION_ID ?? "";
    const w: CardWritten = await writeCardNow(
      {
        title: text(input.title),
        description: text(input.description),
        type: text(input.type),
        body: text(input.body),
        tags: strings(input.tags),
        project: text(input.project),
        related: strings(input.related),
        path: text(input.path),
      },
      { vault, config: this.config(vault), sessionId: isSafeSessionId(sessionId) ? sessionId : "", project: resolveProject(this.cwd) },
    );
    const path = escapeControl(w.path);
    const pct = w.duplicateOf ? `${Math.round(w.duplicateOf.share * 100)}%` : "";
    if (w.action === "already") {
      this.log(`write_card: nothing written, ${w.path} holds it already (${pct})`);
      return {
        text: `Nothing was written: ${path} holds this already (${pct} of the new card's text is there). Read it with read_card; to add something it lacks, call write_card with path=${path}.`,
        unchanged: true,
      };
    }
    this.log(`write_card: ${w.action} ${w.path}${w.linked.length ? `, linked with ${w.linked.join(", ")}` : ""}; snapshot ${w.snapshot}`);
    const lines = [
      w.action === "created"
        ? `Created ${path}.`
        : w.duplicateOf
          ? `Extended ${path} instead of creating a card: it held ${pct} of the new card's text already, so only the paragraphs it lacked were added, as a dated section after its text, which is unchanged.`
          : `Extended ${path}: a dated section was added after its text, which is unchanged.`,
      ...(w.linked.length
        ? [`Links to ${w.linked.map(escapeControl).join(", ")}; those cards are not changed (Obsidian lists the link among their backlinks).`]
        : []),
      ...(w.unknown.length ? [`No card is named ${w.unknown.map((u) => clipLine(u, 80)).join(", ")}; not linked.`] : []),
      ...(w.removed.length ? [`Taken out before it was written: ${w.removed.join(", ")}.`] : []),
      w.snapshot === "overlay" || w.snapshot === "full"
        ? "Recall and search_memory find it from the next prompt on."
        : `The recall index could not be updated (${clipLine(w.snapshot, 200)}), so recall finds it after the next index; the card is written.`,
    ];
    return { text: lines.join("\n") };
  }

  /** edit_card: one section or one property of a card, made to the text read (its hash), one writer at a time. */
  editCard(input: EditCardInput): Promise<ToolAnswer> {
    return this.serially("edit_card", "changed", (vault) => {
      const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
      const value = Array.isArray(input.value) ? input.value.filter((x): x is string => typeof x === "string") : text(input.value);
      const e = editCardNow(
        {
          path: text(input.path) ?? "",
          hash: text(input.hash) ?? "",
          section: text(input.section),
          text: text(input.text),
          field: text(input.field),
          value,
          personAsked: input.person_asked === true,
        },
        { vault, config: this.config(vault) },
      );
      return vectorsAfterWrite(vault, this.config(vault), e.snapshot).then((snapshot) => {
        this.log(`edit_card: ${e.path}, ${e.what}; snapshot ${snapshot}`);
        const text = [
          `Changed ${e.what} of ${escapeControl(e.path)}; its hash is now ${e.hash}.`,
          ...(e.unlinked.length ? [`No note is named ${e.unlinked.map((u) => clipLine(u, 80)).join(", ")}: written as words, not links.`] : []),
          recallLine(snapshot),
        ].join("\n");
        return { text };
      });
    });
  }

  /** archive_card: the card's status set to archived, with the date and the reason; nothing deleted. */
  archiveCard(input: { path?: unknown; reason?: unknown; hash?: unknown; person_asked?: unknown }): Promise<ToolAnswer> {
    return this.serially("archive_card", "changed", (vault) => {
      const e = archiveCardNow(
        {
          path: typeof input.path === "string" ? input.path : "",
          reason: typeof input.reason === "string" ? input.reason : "",
          hash: typeof input.hash === "string" ? input.hash : undefined,
          personAsked: input.person_asked === true,
        },
        { vault, config: this.config(vault) },
      );
      return vectorsAfterWrite(vault, this.config(vault), e.snapshot).then((snapshot) => {
        this.log(`archive_card: ${e.path}; snapshot ${snapshot}`);
        const text = [
          `Archived ${escapeControl(e.path)}: it stays in the vault with status archived and your reason, and recall no longer shows it. The person restores it with Obsidian's "Restore archived card" command or "vault-memory restore --card ${escapeControl(e.path)}".`,
          recallLine(snapshot),
        ].join("\n");
        return { text };
      });
    });
  }

  /**
   * Runs a write after the writes before it, one at a time, counting it against the session's
   * cap unless it left the vault as it was; refuses, with the reason, what cannot be done
   * ("Nothing was `done`: …").
   */
  private serially(tool: string, done: "written" | "changed", change: (vault: string) => Promise<ToolAnswer & { unchanged?: boolean }>): Promise<ToolAnswer> {
    const run = this.writing.then(async (): Promise<ToolAnswer> => {
      const vault = this.vault;
      if (!vault) return refuse(`Nothing was ${done}: ${"problem" in this.opts.vault ? this.opts.vault.why : "no vault"}; ${whereToSetVault(this.env)}.`);
      if (this.writes >= MAX_WRITES_PER_SESSION)
        return refuse(
          `Nothing was ${done}: ${MAX_WRITES_PER_SESSION} cards were written or changed in this session already, the most one session may. Use remember to queue the rest for the nightly digest.`,
        );
      try {
        const { unchanged, ...answer } = await change(vault);
        if (!unchanged) this.writes++;
        return answer;
      } catch (err) {
        if (!(err instanceof CardRefused)) throw err;
        this.log(`${tool}: refused: ${err.message}`);
        return refuse(`Nothing was ${done}: ${escapeControl(err.message)}`);
      }
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  remember(input: { text?: unknown; card?: unknown }): ToolAnswer {
    const raw = typeof input.text === "string" ? input.text.trim() : "";
    if (!raw) return refuse("Nothing was kept: text is empty. Say what to keep, in a sentence or two.");
    if (raw.length > MAX_KEEP_CHARS)
      return refuse(`Nothing was kept: text is ${raw.length} characters; at most ${MAX_KEEP_CHARS}. Keep the point, not the transcript.`);
    if (input.card !== undefined && (typeof input.card !== "string" || input.card.length > MAX_CARD_HINT_CHARS)) {
      return refuse(`Nothing was kept: card must be a card name or path of at most ${MAX_CARD_HINT_CHARS} characters.`);
    }
    const vault = this.vault;
    if (!vault)
      return refuse(`Nothing was kept: ${"problem" in this.opts.vault ? this.opts.vault.why : "no vault"}; to keep anything, ${whereToSetVault(this.env)}.`);
    // Before anything touches the disk: secrets and <private> passages never reach the queue.
    const text = sanitize(raw).trim();
    const cardHint = typeof input.card === "string" ? sanitize(input.card).replace(/\s+/g, " ").trim() : "";
    if (!text) return refuse("Nothing was kept: once private passages were removed, nothing was left.");
    const note = { text, ...(cardHint ? { card: cardHint } : {}) };
    try {
      const session = this.session();
      if (session) {
        const config = this.config(vault);
        // Called mid-turn: the reply is not written yet, and the turn's Stop hook adds it to this
        // same entry. A transcript not found now is no reason to part the note from the session.
        const r = captureSession(vault, { sessionId: session.id, transcriptPath: session.transcript, cwd: this.cwd, stopHookActive: false }, config.queue, {
          wanted: true,
          note,
          midTurn: true,
        });
        const where = cardHint ? escapeControl(cardHint) : "a matching card";
        if (r.queued && !r.unread)
          return {
            text: `Queued for the nightly digest, with this session's conversation, marked as wanted: it will become a card (or extend ${where}) and will not be skipped. No card was written yet.`,
          };
        if (r.queued) {
          this.log(`remember: session ${session.id} queued without its transcript (${r.unread})`);
          return {
            text: `Queued for the nightly digest under this session, marked as wanted: it will become a card (or extend ${where}) and will not be skipped. This session's transcript could not be read yet, so the conversation is added when this turn ends, if it can be read then. No card was written yet.`,
          };
        }
        this.log(`remember: session ${session.id} not queued (${r.reason}); keeping the note on its own`);
        if (/excluded/.test(r.reason)) return refuse(`Nothing was kept: ${r.reason} from the memory in the vault's settings.`);
      }
      const entry = queueNote(vault, note, this.cwd);
      return {
        text: `Queued for the nightly digest as a note of its own, marked as wanted (the server was not told which session this is, so the conversation itself is not attached): ${entry.inbox}. No card was written yet.`,
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log(`remember: ${message}`);
      return refuse(`Nothing was kept: the queue in ${vault} could not be written (${message}).`);
    }
  }

  close(): void {
    this.snapshot?.close();
  }

  /**
   * The session Claude Code started this server for, and its transcript if it can be found (""
   * if not: the note is still the session's, and its Stop hook knows the transcript's path).
   */
  private session(): { id: string; transcript: string } | undefined {
    const id = this.env.CLAUDE_CODE_SESSION_ID ?? "";
    if (!isSafeSessionId(id)) return undefined;
    const projects = claudeProjectsDir(this.env);
    // Claude Code names a project's folder after its path, every other character a dash.
    const direct = join(projects, resolve(this.cwd).replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`);
    if (existsSync(direct)) return { id, transcript: direct };
    try {
      for (const dir of readdirSync(projects).slice(0, 5000)) {
        const p = join(projects, dir, `${id}.jsonl`);
        if (existsSync(p)) return { id, transcript: p };
      }
    } catch {
      /* no transcripts kept at all */
    }
    return { id, transcript: "" };
  }

  private config(vault: string): VaultMemoryConfig {
    return loadVaultConfig(vault).config;
  }

  private cardMeta(vault: string, rel: string, config: VaultMemoryConfig, mtime = 0): ReturnType<typeof parseCard> | undefined {
    const found = cardFile(vault, rel, config);
    if ("refused" in found) return undefined;
    const text = readBounded(found.abs, MAX_META_BYTES);
    return "text" in text && !text.cut ? parseCard(found.rel, text.text, mtime) : undefined;
  }

  private log(message: string): void {
    if (this.vault) appendLog(vaultFiles.log(this.vault), "mcp", message);
  }
}

/** How the recall index followed a change, in the tool's words. */
function recallLine(snapshot: string): string {
  return snapshot === "overlay" || snapshot === "full"
    ? "Recall and search_memory see the change from the next prompt on."
    : `The recall index could not be updated (${clipLine(snapshot, 200)}), so recall sees the change after the next index; the card is changed.`;
}

/** edit_card's input as the schema lets it through; editCardNow checks every field. */
export interface EditCardInput {
  path?: unknown;
  hash?: unknown;
  section?: unknown;
  text?: unknown;
  field?: unknown;
  value?: unknown;
  person_asked?: unknown;
}

/** write_card's input as the schema lets it through; writeCardNow checks every field. */
export interface WriteCardInput {
  title?: unknown;
  description?: unknown;
  type?: unknown;
  body?: unknown;
  tags?: unknown;
  project?: unknown;
  related?: unknown;
  path?: unknown;
}

/** When a card last changed in what it says: its updated (or created) date or its newest dated section; the file's time for a note with neither. */
function changedAt(card: Card): number {
  const fm = card.frontmatter;
  const dated = [fm.updated, fm.created, fm.date, ...card.headings.filter((h) => h.level === 2).map((h) => h.text)]
    .map((v) => (v instanceof Date ? v.getTime() : typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v.trim()) ? Date.parse(v.trim()) : NaN))
    .filter((t) => Number.isFinite(t));
  return dated.length > 0 ? Math.max(...dated) : card.mtime;
}

/** `at`, or one before it when it would split a surrogate pair. */
function pairStart(text: string, at: number): number {
  return at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

/** Where a piece of at most `max` characters from `start` ends: after a line break in its second half if there is one, never inside a surrogate pair. */
function pieceEnd(text: string, start: number, max: number): number {
  if (text.length - start <= max) return text.length;
  const limit = start + max;
  const lineEnd = text.lastIndexOf("\n", limit - 1);
  if (lineEnd >= start + max / 2) return lineEnd + 1;
  return pairStart(text, limit);
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The hook's order where the hook would print, score order below it. recall() puts the project's
 * cards, then cards of no project, ahead of others among everything it returns; with the relative
 * cut lifted that would let a weak card of no project outrank a strong one of another project.
 * Within the hook's band (at least `relativeToTop` of the best score) its project order stands.
 */
function bandOrder(cards: RecalledCard[], relativeToTop: number, project: string): RecalledCard[] {
  const byScore = [...cards].sort((a, b) => b.score - a.score);
  const floor = (byScore[0]?.score ?? 0) * relativeToTop;
  const band = byScore.filter((c) => c.score >= floor).sort((a, b) => projectTier(a, project) - projectTier(b, project));
  return [...band, ...byScore.filter((c) => c.score < floor)];
}

/**
 * The query's words, as the person wrote them, whose terms the card holds: the stems and pairs
 * the index compares ("nightli", "程跑") mean nothing to them. Overlapping pairs of Chinese
 * characters join into the run they were cut from, and an identifier's parts into the identifier.
 */
function wordsMatched(said: ReturnType<typeof termSpans>, inCard: ReadonlySet<string>): string[] {
  const hits = said.spans.filter((s) => inCard.has(s.term)).sort((a, b) => a.from - b.from || b.to - a.to);
  const runs: { from: number; to: number }[] = [];
  for (const h of hits) {
    const last = runs[runs.length - 1];
    if (last && h.from < last.to) last.to = Math.max(last.to, h.to);
    else runs.push({ from: h.from, to: h.to });
  }
  const words = new Map<string, string>();
  for (const r of runs) {
    const word = said.text.slice(r.from, r.to);
    if (!words.has(word.toLowerCase())) words.set(word.toLowerCase(), word);
  }
  return [...words.values()];
}

function refuse(text: string): ToolAnswer {
  return { text, isError: true };
}

/** One line of at most `max` characters before escaping: white space runs made one space, control characters escaped. */
function clipLine(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(one);
  // Cut before escaping, so that no escape is cut in half.
  return quotedLine(chars.length <= max ? one : chars.slice(0, max - 1).join("") + "…");
}

/**
 * The card a model-given path names, or why it may not be read. The path is checked as written
 * (no climbing out, inside the memory folder) and again as it resolves on disk, so a symlink
 * inside the vault cannot lead to a file outside it or outside the cards.
 */
export function cardFile(vault: string, given: string, config: VaultMemoryConfig): { abs: string; rel: string } | { refused: string } {
  const root = resolve(vault);
  const abs = isAbsolute(given) ? resolve(given) : resolve(root, given.replace(/\\/g, "/"));
  const rel = relative(root, abs);
  // Refusals name the path on one line, whatever the model sent.
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel))
    return { refused: `${escapeControl(given)} is outside the vault; only cards in the vault can be read.` };
  const relPosix = rel.split(sep).join("/");
  const shown = escapeControl(relPosix);
  if (!isCard(relPosix, config))
    return {
      refused: `${shown} is not a memory card (only the vault's notes${config.memoryFolder ? ` in ${escapeControl(config.memoryFolder)}/` : ""}, outside hidden and excluded folders, can be read).`,
    };
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(abs);
    realRoot = realpathSync(root);
  } catch {
    return { refused: `${shown} does not exist.` };
  }
  const realRel = relative(realRoot, real);
  if (realRel === "" || realRel.startsWith("..") || isAbsolute(realRel)) return { refused: `${shown} is a link that leads outside the vault; it is not read.` };
  if (!isCard(realRel.split(sep).join("/"), config)) return { refused: `${shown} is a link to a file that is not a memory card; it is not read.` };
  return { abs: real, rel: relPosix };
}

/** Up to `maxBytes` of a regular file as UTF-8, and whether there was more; or why it was not read. */
function readBounded(path: string, maxBytes: number): { text: string; cut: boolean } | { error: string } {
  let fd: number | undefined;
  try {
    // Not blocking: a FIFO named like a card would hang this call and every one after it.
    let st;
    ({ fd, st } = openRegularFile(path));
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return { text: buf.subarray(0, n).toString("utf8"), cut: st.size > maxBytes };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
