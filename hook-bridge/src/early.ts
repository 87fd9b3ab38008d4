/**
 * The prompt hook's first steps with semantic recall on, before recall's code loads: the
 * payload, the vault, and the request for the prompt's vector, so that the server works while
 * the rest loads and scores. Part of the semantic code; the entry runs it when a glance at the
 * snapshot's first line (semanticGlance) says the rules may turn semantic recall on.
 */

import { badFlags, parseArgs, stringFlag } from "./args";
import { readStdinSync } from "./stdin";
import { findVault, type VaultLookup } from "./vault";
import type { EmbedResult } from "../../src/core/embed/client";
import { vaultFiles } from "../../src/core/paths";
import { headerFromLine } from "../../src/core/snapshot/read";
import { firstLine } from "../../src/core/io/first-line";
import { trustedSemantic } from "../../src/core/embed/settings";

/** A request for the prompt's vector, made before the snapshot was read in full. */
export interface EarlyAsk {
  /** The snapshot's headerSum as its first line gave it: the ask stands only for that snapshot. */
  headerSum: string;
  asked: Promise<EmbedResult>;
  sent: Promise<void>;
}

export interface Early {
  stdin: string;
  vault: VaultLookup;
  ask?: EarlyAsk;
}

/** What the semantic code offers the entry (see semantic.ts). */
export interface EarlySemantic {
  beginRecall(argv: readonly string[]): Early | undefined;
}

type AskEarly = (prompt: string, semantic: unknown) => { asked: Promise<EmbedResult>; sent: Promise<void> } | undefined;

// The snapshot's first line is under a kilobyte; one that is longer is read by recall as ever.
const HEAD_BYTES = 4096;

/**
 * Reads the payload and finds the vault; asks for the prompt's vector when the snapshot's rules
 * turn semantic recall on. Never throws: anything unexpected leaves the rest to recall.
 */
export function beginRecall(argv: readonly string[], askEarly: AskEarly): Early | undefined {
  let stdin: string;
  let vault: VaultLookup;
  let configFlag: string | undefined;
  try {
    // A command line the dispatcher will refuse asks for nothing.
    if (badFlags(argv, "recall")) return undefined;
    stdin = readStdinSync();
    const args = parseArgs(argv);
    vault = findVault(args);
    configFlag = stringFlag(args, "config");
  } catch {
    return undefined;
  }
  if (!("vault" in vault)) return { stdin, vault };
  try {
    const head = firstLine(vaultFiles.snapshot(vault.vault), HEAD_BYTES);
    // Without the word the rules cannot hold semantic recall, and the line is not parsed here.
    if (!head.includes('"semantic":')) return { stdin, vault };
    // Checked as recall checks it (format, version, tokenizer, its own sum): a snapshot recall
    // would not use asks for nothing.
    const h = headerFromLine(Buffer.from(head, "utf8"));
    const prompt = (JSON.parse(stdin) as { prompt?: unknown } | null)?.prompt;
    if (typeof h.headerSum !== "string" || typeof prompt !== "string" || !h.rules.semantic) return { stdin, vault };
    // Recall says why when there is no server to ask; nothing is asked for here then.
    const semantic = trustedSemantic(h.rules.semantic, vault.vault, configFlag);
    if (typeof semantic === "string") return { stdin, vault };
    const ask = askEarly(prompt, semantic);
    return { stdin, vault, ask: ask && { headerSum: h.headerSum, ...ask } };
  } catch {
    return { stdin, vault };
  }
}
