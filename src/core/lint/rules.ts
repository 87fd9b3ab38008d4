/** The lint rules: each a pure function from the vault's context to findings. */

import { baseName, type Card } from "../card/card";
import { freePath } from "../card/compose";
import { LinkResolver } from "../card/links";
import { FOLDER_OF_TYPE, isRetired, isVaultPage } from "../card/schema";
import { termOverlap, tokenize } from "../text/tokenizer";
import { ASIDE_DIR } from "../paths";
import type { CopyKind } from "../vault/conflicts";
import { inCardFolder } from "../vault/scan";
import { controlToSpace, escapeControl, hasControl } from "../text/visible";
import { scanForSecrets } from "./secrets";
import { instructionIn } from "../text/instructions";
import type { Finding, LintContext, Rule } from "./types";
import { unusedCards } from "./unused";

const MEMORY_INDEX = "MEMORY.md";
// What Claude Code's auto memory loads of MEMORY.md.
const MEMORY_MAX_LINES = 200;
const MEMORY_MAX_BYTES = 25 * 1024;

const cardsOnly = (ctx: LintContext): Card[] => ctx.cards.filter((c) => c.path !== MEMORY_INDEX);
/** The memory folder with a closing slash, "" for the whole vault. */
const memoryPrefix = (ctx: LintContext): string => (ctx.memoryFolder.replace(/^\/+|\/+$/g, "") ? ctx.memoryFolder.replace(/^\/+|\/+$/g, "") + "/" : "");
/** The path inside the memory folder; undefined for a note outside it. */
const inMemory = (ctx: LintContext, path: string): string | undefined => {
  const prefix = memoryPrefix(ctx);
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
};
/** The first folder of a path inside the memory folder: a card's type folder. */
const folderOf = (path: string): string => (path.includes("/") ? path.slice(0, path.indexOf("/")) : "");

// Severities: an error is what breaks recall or the digest (frontmatter or a name recall cannot
// read, a secret Claude would be shown); style and tidiness are warnings, so that lint's exit code
// says whether something must be fixed.

/**
 * Notes held to the card schema: those in a type folder of the memory folder. Any other note is
 * recalled by its name and first paragraph, and lacks no field.
 */
const schemaCards = (ctx: LintContext): Card[] => cardsOnly(ctx).filter((c) => inCardFolder(c.path, ctx.memoryFolder));

export const missingFrontmatter: Rule = (ctx) =>
  schemaCards(ctx)
    .filter((c) => !c.hasFrontmatter)
    .map((c) => ({
      rule: "missing-frontmatter",
      severity: "warning",
      file: c.path,
      line: 1,
      message: "no frontmatter: recall takes the card's title and description from its name and first paragraph",
    }));

// What recall reads from a card's frontmatter as text: name and description to show, type and
// project to rank and scope, status to leave a retired card out.
const TEXT_FIELDS = ["name", "description", "type", "project", "status"] as const;

/**
 * Frontmatter recall cannot read: YAML that does not parse loses every field (a retired card is
 * recalled again, a project's card shown in every project), and a field recall reads as text that
 * is a list or a map is read as empty.
 */
export const brokenFrontmatter: Rule = (ctx) =>
  cardsOnly(ctx).flatMap((c): Finding[] => {
    if (c.frontmatterError)
      return [{ rule: "broken-frontmatter", severity: "error", file: c.path, line: 1, message: `frontmatter cannot be read: ${c.frontmatterError}` }];
    const bad = TEXT_FIELDS.filter((k) => typeof c.frontmatter[k] === "object" && c.frontmatter[k] !== null && !(c.frontmatter[k] instanceof Date));
    return bad.map((k) => ({
      rule: "broken-frontmatter",
      severity: "error" as const,
      file: c.path,
      line: 1,
      message: `${k} is ${Array.isArray(c.frontmatter[k]) ? "a list" : "a map"}, not text: recall reads it as empty`,
    }));
  });

export const missingTags: Rule = (ctx) =>
  schemaCards(ctx)
    .filter((c) => c.hasFrontmatter && !c.frontmatterError && c.tags.length === 0)
    .map((c) => ({
      rule: "missing-tags",
      severity: "warning",
      file: c.path,
      line: 1,
      message: c.frontmatter.tags === undefined ? "no tags" : "tags is empty: add at least one",
      ...(c.frontmatter.tags === undefined ? { fix: { kind: "add-empty-tags" as const } } : {}),
    }));

export const duplicateName: Rule = (ctx) => {
  const byName = new Map<string, string[]>();
  // A case twin is a sync conflict copy, reported with its family (syncConflict).
  const copies = new Set(ctx.conflicts().flatMap((f) => f.copies.map((c) => c.path)));
  for (const c of ctx.cards) {
    if (copies.has(c.path)) continue;
    const name = baseName(c.path).toLowerCase();
    const paths = byName.get(name);
    if (paths) paths.push(c.path);
    else byName.set(name, [c.path]);
  }
  const out: Finding[] = [];
  for (const paths of byName.values()) {
    if (paths.length < 2) continue;
    for (const p of paths) {
      const others = paths.filter((x) => x !== p).join(", ");
      out.push({ rule: "duplicate-name", severity: "warning", file: p, line: 0, message: `same file name as ${others}: a [[link]] to it is ambiguous` });
    }
  }
  return out;
};

export const orphan: Rule = (ctx) =>
  cardsOnly(ctx)
    .filter((c) => (ctx.graph.out.get(c.path)?.size ?? 0) === 0 && (ctx.graph.in.get(c.path)?.size ?? 0) === 0)
    .map((c) => ({ rule: "orphan", severity: "warning", file: c.path, line: 0, message: "no links in or out: nothing leads to this card" }));

export const missingLinkTarget: Rule = (ctx) => {
  const out: Finding[] = [];
  for (const [target, mentions] of ctx.graph.missing) {
    const files = [...new Set(mentions.map((m) => m.file))];
    out.push({
      rule: "missing-link-target",
      severity: "info",
      file: mentions[0].file,
      line: mentions[0].line,
      message: `no card "${target}" yet, mentioned by ${files.join(", ")}: worth writing one day`,
    });
  }
  return out;
};

export const longSection: Rule = (ctx) => {
  const out: Finding[] = [];
  for (const c of cardsOnly(ctx)) {
    const heads = c.headings;
    // No section is longer than the body it is part of.
    if (heads.length === 0 || c.body.length <= ctx.settings.maxSectionChars) continue;
    const starts = lineStarts(c.body);
    const bounds = [...heads.map((h) => h.line), starts.length - 1];
    for (let i = 0; i < heads.length; i++) {
      const first = bounds[i] + 1;
      const end = bounds[i + 1];
      // The length of those lines joined by newlines, as a cut would give it.
      const chars = end > first ? starts[end] - 1 - starts[first] : 0;
      if (chars > ctx.settings.maxSectionChars) {
        out.push({
          rule: "long-section",
          severity: "suggestion",
          file: c.path,
          line: heads[i].line + c.bodyLine + 1,
          message: `section "${heads[i].text}" is ${chars} characters; consider splitting it into its own card`,
        });
      }
    }
  }
  return out;
};

/** Where each line of `text` starts, then where one more line would start after the last. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  starts.push(text.length + 1);
  return starts;
}

export const missingDescription: Rule = (ctx) =>
  schemaCards(ctx)
    .filter((c) => c.hasFrontmatter && !c.frontmatterError && typeof c.frontmatter.description !== "string")
    .map((c) => ({
      rule: "missing-description",
      severity: "warning",
      file: c.path,
      line: 1,
      message: "no description: recall shows Claude the first paragraph instead",
    }));

export const typeFolderMismatch: Rule = (ctx) =>
  cardsOnly(ctx).flatMap((c): Finding[] => {
    const want = FOLDER_OF_TYPE[c.type.toLowerCase()];
    const rel = inMemory(ctx, c.path);
    if (!want || rel === undefined || folderOf(rel) === want) return [];
    // The type's folder inside the memory folder: a move out of it would end the card's recall.
    const folder = memoryPrefix(ctx) + want;
    return [
      {
        rule: "type-folder-mismatch",
        severity: "warning",
        file: c.path,
        line: 1,
        message: `type "${c.type}" belongs in ${folder}/`,
        fix: { kind: "move-to-folder", folder },
      },
    ];
  });

export const strayRootNote: Rule = (ctx) => {
  // A root note named like a folder of notes beside it is an older layout's card, which sync
  // leaves out (sync/sync.ts, rootShadows): the person is told why it never reaches the other computers.
  const folders = new Set(ctx.cards.map((c) => c.path.split("/")[0].toLowerCase()));
  return ctx.cards
    .filter((c) => {
      const rel = inMemory(ctx, c.path);
      return rel !== undefined && !rel.includes("/") && rel !== MEMORY_INDEX;
    })
    .map((c) => ({
      rule: "stray-root-note",
      severity: "warning",
      file: c.path,
      line: 0,
      message: ctx.memoryFolder
        ? "a note at the memory folder's root: cards live in the folder of their type"
        : folders.has(c.path.replace(/\.md$/i, "").toLowerCase())
          ? `a note at the vault root named like the folder ${c.path.replace(/\.md$/i, "")}/ beside it: sync never sends it to your other computers, so that an old copy cannot travel back over that folder's cards; move what it holds into them`
          : "a note at the vault root: only MEMORY.md belongs there",
    }));
};

export const subprojectWithoutParent: Rule = (ctx) =>
  cardsOnly(ctx).flatMap((c): Finding[] => {
    if (c.type.toLowerCase() !== "subproject") return [];
    if (!c.parent) return [{ rule: "subproject-without-parent", severity: "warning", file: c.path, line: 1, message: "type subproject without a parent" }];
    if (!ctx.graph.resolve(c.parent, c.path)) {
      return [{ rule: "subproject-without-parent", severity: "warning", file: c.path, line: 1, message: `parent "${c.parent}" does not exist` }];
    }
    return [];
  });

export const supersededWithoutBacklink: Rule = (ctx) =>
  cardsOnly(ctx).flatMap((c): Finding[] => {
    if (!["superseded", "merged"].includes(c.status)) return [];
    const main = str(c.frontmatter["superseded-by"]) || str(c.frontmatter["merged-into"]) || c.parent;
    const mainPath = main ? ctx.graph.resolve(main, c.path) : undefined;
    if (mainPath && ctx.graph.out.get(c.path)?.has(mainPath)) return [];
    return [
      {
        rule: "superseded-without-backlink",
        severity: "warning",
        file: c.path,
        line: 1,
        message: main ? `status ${c.status} but no link back to its main card "${main}"` : `status ${c.status} without naming its main card (superseded-by)`,
        ...(mainPath ? { fix: { kind: "add-link-back" as const, target: baseName(mainPath) } } : {}),
      },
    ];
  });

export const secretInCard: Rule = (ctx) => {
  const scans = ctx.secretScans?.();
  return ctx.cards.flatMap((c): Finding[] => {
    const { kinds, line } = scans?.get(c.path) ?? scanForSecrets(ctx.text.get(c.path) ?? "");
    if (kinds.length === 0) return [];
    return [
      {
        rule: "secret-in-card",
        severity: "error",
        file: c.path,
        line,
        message: `looks like a secret (${kinds.join(", ")}): remove it or wrap it in <private>`,
      },
    ];
  });
};

export const memoryIndexTooLong: Rule = (ctx) => {
  const text = ctx.text.get(MEMORY_INDEX);
  if (text === undefined) return [];
  const lines = text.split("\n").length;
  const bytes = Buffer.byteLength(text, "utf8");
  if (lines <= MEMORY_MAX_LINES && bytes <= MEMORY_MAX_BYTES) return [];
  return [
    {
      rule: "memory-index-too-long",
      severity: "warning",
      file: MEMORY_INDEX,
      line: MEMORY_MAX_LINES + 1,
      message: `${lines} lines, ${Math.round(bytes / 1024)} KB: Claude Code loads only the first 200 lines or 25 KB`,
    },
  ];
};

export const staleSnapshot: Rule = (ctx) => {
  if (ctx.snapshot === "unreadable")
    return [{ rule: "stale-snapshot", severity: "warning", file: "", line: 0, message: "the recall snapshot cannot be read: rebuild the index" }];
  if (ctx.snapshot === undefined)
    return [{ rule: "stale-snapshot", severity: "warning", file: "", line: 0, message: "no recall snapshot yet: rebuild the index" }];
  const newest = Math.max(0, ...ctx.cards.map((c) => c.mtime));
  if (newest <= ctx.snapshot) return [];
  return [{ rule: "stale-snapshot", severity: "warning", file: "", line: 0, message: "the recall snapshot is older than the newest card: rebuild the index" }];
};

// What the nightly archiving would take (lint/unused.ts), judged on what it judges: the scope's
// cards, their links resolved among them alone. Nothing until the log covers the days.
export const unusedCard: Rule = (ctx) => {
  const resolver = new LinkResolver(ctx.scopeCards.map((c) => c.path));
  const verdict = unusedCards(ctx.scopeCards, ctx.recallLog, ctx.settings.unusedDays, ctx.now, (t, from) => resolver.resolve(t, from));
  if ("waiting" in verdict) return [];
  const reported = new Set(ctx.cards.map((c) => c.path));
  return verdict.unused
    .filter(({ card }) => reported.has(card.path))
    .map(({ card }) => ({
      rule: "unused-card",
      severity: "info",
      file: card.path,
      line: 1,
      message: `not recalled, read or linked in ${ctx.settings.unusedDays} days: archiving keeps it in the vault and stops recalling it`,
      fix: { kind: "archive" as const, reason: `not recalled, read or linked in ${ctx.settings.unusedDays} days` },
    }));
};

// Words a card uses when it turns a decision around: what was chosen is given up for another.
const REVERSAL =
  /\b(?:instead of|no longer|switched (?:from|to|back)|replac(?:e|ed|es|ing)|rather than|moved (?:away )?from|dropped|abandon(?:ed)?|stopped using|revert(?:ed)?|we do not use|don't use)\b|改用|不再|弃用|棄用|换成|換成|取代|代替|代わりに|やめ|廃止/i;
// Two cards of a project share this much of their words: the same subject.
const SAME_SUBJECT = 0.3;
// Pairs compared in one project at most: a project of thousands of cards is compared in its newest.
const MAX_COMPARED = 400;

/**
 * A newer card that may contradict an older one on the same subject: same project, much of the
 * same words, and the newer one turns a decision around ("instead of", "no longer", 改用). Flagged,
 * never decided: the person says whether the older is superseded.
 */
export const possibleContradiction: Rule = (ctx) => {
  const byProject = new Map<string, { card: Card; terms: Set<string> }[]>();
  for (const c of cardsOnly(ctx)) {
    if (!c.project || isRetired(c.status) || isVaultPage(c.type)) continue;
    const list = byProject.get(c.project) ?? [];
    list.push({ card: c, terms: new Set(tokenize(`${c.name}\n${c.description}\n${c.body}`)) });
    byProject.set(c.project, list);
  }
  const out: Finding[] = [];
  for (const list of byProject.values()) {
    const newest = list.sort((a, b) => b.card.updated - a.card.updated).slice(0, MAX_COMPARED);
    for (let i = 0; i < newest.length; i++) {
      const newer = newest[i];
      const turn = REVERSAL.exec(newer.card.body);
      if (!turn) continue;
      for (const older of newest.slice(i + 1)) {
        if (older.card.updated >= newer.card.updated || termOverlap(newer.terms, older.terms) < SAME_SUBJECT) continue;
        out.push({
          rule: "possible-contradiction",
          severity: "warning",
          file: newer.card.path,
          line: 1,
          message: `may contradict the older ${older.card.path} (same project, same subject, and this card says "${escapeControl(turn[0])}"): if it replaces it, set that card's status to superseded and link the two; if both hold, say how they differ`,
        });
        break;
      }
    }
  }
  return out;
};

/**
 * A card whose text reads as instructions to an assistant (see text/instructions.ts): its words
 * reach Claude whenever it is recalled, so an order hidden in a synced note or written from a
 * hostile conversation would reach it too. A warning: a note about prompt injection may quote one.
 */
export const readsAsInstructions: Rule = (ctx) =>
  cardsOnly(ctx).flatMap((c): Finding[] => {
    const fields = [
      c.name,
      c.description,
      ...Object.values(c.frontmatter).flatMap((v) =>
        typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [],
      ),
    ];
    const inFields = fields.map(instructionIn).find((x) => x !== undefined);
    const lines = c.body.split("\n");
    const at = inFields === undefined ? lines.findIndex((l) => instructionIn(l) !== undefined) : -1;
    const said = inFields ?? (at >= 0 ? instructionIn(lines[at]) : undefined);
    if (said === undefined) return [];
    return [
      {
        rule: "reads-as-instructions",
        severity: "warning",
        file: c.path,
        line: at >= 0 ? c.bodyLine + at : 1,
        message: `reads as instructions to an assistant ("${escapeControl(said.slice(0, 80))}"): Claude reads cards as notes; reword it, or delete it if you did not write it`,
      },
    ];
  });

/**
 * A path with a line break, separator or bidi control: printed, it can make a line that reads as
 * a card of its own in what recall gives Claude, or turn the text around it. Recall and the
 * reports show it escaped, but by that name Claude cannot open it, nor a [[link]] reach it; an
 * error, with a rename to the same path with each run of those characters made a space.
 */
export const controlCharacterInName: Rule = (ctx) => {
  const named = ctx.cards.filter((c) => hasControl(c.path));
  if (named.length === 0) return [];
  // Two such notes may clean to one name: the second is offered the next number.
  const notes = ctx.cards.map((c) => c.path);
  return named.map((c): Finding => {
    const found = [...new Set(Array.from(c.path).filter(hasControl).map(escapeControl))];
    const to = pathWithoutControl(c.path, notes);
    notes.push(to);
    return {
      rule: "control-character-in-name",
      severity: "error",
      file: c.path,
      line: 0,
      message: `the name holds control characters (${found.join(", ")}): where it is shown, it can start a line of its own or turn text around; rename it`,
      fix: { kind: "rename", to },
    };
  });
};

/**
 * Where a note named with control characters goes: each run of them (with the spaces around it)
 * made one space, in every folder and the file name, at a name no other note has (numbered as the
 * composer numbers a taken name: wikilinks resolve by file name, so a second "a b" would take the
 * first one's links). `notes` are the vault's notes; `exists` also sees other files.
 */
export function pathWithoutControl(path: string, notes: readonly string[], exists: (path: string) => boolean = () => false): string {
  const parts = path.split("/").map((p) => controlToSpace(p) || "untitled");
  const file = parts.pop()!.replace(/\.md$/i, "").trim() || "untitled";
  return freePath(
    parts.join("/"),
    file,
    notes.filter((n) => n !== path),
    exists,
  );
}

const MADE_BY: Record<CopyKind, string> = {
  syncthing: "Syncthing",
  dropbox: "Dropbox",
  numbered: "a copy numbered by iCloud or Drive",
  case: "same name but for case",
  unicode: "same name in another Unicode form",
};

/**
 * A note with the copies sync tools left beside it (vault/conflicts.ts). Recall shows the family
 * once; the copies still crowd searches, links and the sidebar, and hold edits made on one
 * computer only. One finding a family, on the note that stays, with a fix that moves the copies
 * into the hidden folder, where nothing reads them and nothing is lost.
 */
export const syncConflict: Rule = (ctx) =>
  ctx.conflicts().map((f): Finding => {
    const moves = [...asidePaths(f.copies.map((c) => c.path))].map(([from, to]) => ({ from, to }));
    const listed = f.copies.map((c) => `${c.path.slice(c.path.lastIndexOf("/") + 1)} (${MADE_BY[c.kind]})`).join(", ");
    return {
      rule: "sync-conflict",
      severity: "warning",
      file: f.keep,
      line: 0,
      message: `${f.copies.length === 1 ? "a sync conflict copy" : `${f.copies.length} sync conflict copies`} beside it: ${listed}. Keep what they add here, then move them aside to ${ASIDE_DIR}/`,
      fix: { kind: "move-aside", moves },
    };
  });

/**
 * Where each sync conflict copy goes: its own path under ASIDE_DIR, numbered as the composer
 * numbers a taken name when `exists` says that path is taken, or another copy of the batch took
 * it (a case-insensitive disk would see "Note.md" and "note.md" as one file).
 */
export function asidePaths(copies: readonly string[], exists: (path: string) => boolean = () => false): Map<string, string> {
  const chosen: string[] = [];
  const out = new Map<string, string>();
  for (const copy of copies) {
    const slash = copy.lastIndexOf("/");
    const folder = slash < 0 ? ASIDE_DIR : `${ASIDE_DIR}/${copy.slice(0, slash)}`;
    const to = freePath(folder, baseName(copy), chosen, exists);
    chosen.push(to);
    out.set(copy, to);
  }
  return out;
}

export const RULES: Readonly<Record<string, Rule>> = {
  "missing-frontmatter": missingFrontmatter,
  "broken-frontmatter": brokenFrontmatter,
  "missing-tags": missingTags,
  "duplicate-name": duplicateName,
  orphan,
  "missing-link-target": missingLinkTarget,
  "long-section": longSection,
  "missing-description": missingDescription,
  "type-folder-mismatch": typeFolderMismatch,
  "stray-root-note": strayRootNote,
  "subproject-without-parent": subprojectWithoutParent,
  "superseded-without-backlink": supersededWithoutBacklink,
  "secret-in-card": secretInCard,
  "memory-index-too-long": memoryIndexTooLong,
  "stale-snapshot": staleSnapshot,
  "unused-card": unusedCard,
  "control-character-in-name": controlCharacterInName,
  "sync-conflict": syncConflict,
  "reads-as-instructions": readsAsInstructions,
  "possible-contradiction": possibleContradiction,
};

/** What a person reads about a rule, in the report and the settings: a name and one line of why. */
export interface RuleInfo {
  title: string;
  description: string;
}

export const RULE_INFO: Readonly<Record<keyof typeof RULES, RuleInfo>> = {
  "missing-frontmatter": {
    title: "Missing frontmatter",
    description: "Recall and the digest read a card's name, description, type and tags from its frontmatter.",
  },
  "broken-frontmatter": {
    title: "Frontmatter recall cannot read",
    description: "Frontmatter that does not parse, or a name, description, type, project or status that is not text.",
  },
  "missing-tags": { title: "Missing tags", description: "Every card needs at least one tag, so the digest can file it and link it to its neighbours." },
  "duplicate-name": { title: "Duplicate file name", description: "Two notes share a file name, so a [[link]] to either one is ambiguous." },
  orphan: { title: "Orphan card", description: "No links in or out: nothing leads to this card, and it leads nowhere." },
  "missing-link-target": { title: "Link to a card not written yet", description: "A link names a card no note is; a list of cards worth writing one day." },
  "long-section": { title: "Long section", description: "A section longer than the set length; split cards are recalled more precisely." },
  "missing-description": { title: "Missing description", description: "Without a description, recall shows Claude the card's first paragraph instead." },
  "type-folder-mismatch": { title: "Card in another type's folder", description: "The card's type belongs in another folder; moving it keeps every link." },
  "stray-root-note": { title: "Note at the vault's root", description: "Cards live in the folder of their type." },
  "subproject-without-parent": { title: "Subproject without its parent", description: "The card names a parent project that no card is." },
  "superseded-without-backlink": {
    title: "Superseded card without a link back",
    description: "A card replaced by another should link to it, so old links still lead somewhere.",
  },
  "secret-in-card": { title: "Secret in a card", description: "Something that looks like a key, token or password: cards are shown to Claude." },
  "memory-index-too-long": { title: "MEMORY.md too long", description: "Claude Code loads only the first 200 lines or 25 KB of MEMORY.md." },
  "stale-snapshot": { title: "Recall snapshot out of date", description: "The snapshot recall reads is older than the newest card." },
  "unused-card": {
    title: "Card not recalled lately",
    description: "Not recalled, read or linked for the set number of days; archiving keeps it and stops recalling it.",
  },
  "control-character-in-name": {
    title: "Control character in a name",
    description: "A line break or other control character in a note's path starts a line of its own wherever it is shown.",
  },
  "sync-conflict": {
    title: "Sync conflict copies",
    description: "Copies a sync tool left beside a note hold edits made on one computer and crowd links and searches.",
  },
  "reads-as-instructions": {
    title: "Card that reads as instructions",
    description: "Text that orders an assistant about, such as ignore previous instructions: cards reach Claude as notes.",
  },
  "possible-contradiction": {
    title: "Card that may contradict an older one",
    description: "A newer card of the same project and subject turns a decision around: say which holds, and mark the other superseded.",
  },
};

/** A rule's name and description; a rule id of another release is shown as it is. */
export function ruleInfo(id: string): RuleInfo {
  return (RULE_INFO as Record<string, RuleInfo>)[id] ?? { title: id, description: "" };
}

function str(v: unknown): string {
  if (typeof v !== "string") return "";
  const m = /^\[\[([^\]|#]+)/.exec(v.trim());
  return m ? m[1] : v.trim();
}
