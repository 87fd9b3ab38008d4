/**
 * What the prompt hook needs only with semantic recall on: asking for the prompt's vector and
 * searching the cards' vectors. Its own file in the build (vault-memory-semantic.cjs), loaded on
 * first use, so that with semantic recall off a prompt loads none of it (the secret patterns the
 * prompt is cleaned with are most of it).
 */

import { embedTexts, type EmbedResult } from "../../../src/core/embed/client";
import { closeVectors, openVectors, searchOpen, vectorsPathOf, type OpenVectors } from "../../../src/core/embed/vectors";
import { sanitize } from "../../../src/core/privacy/redact";
import type { MachineEmbed } from "../../../src/core/embed/settings";

/** This file's functions as the prompt hook is handed them; `used` tells a code cache the run used them all. */
export type MeaningCode = Pick<typeof import("./meaning"), "askVector" | "openCards" | "closeCards" | "searchCards"> & { used?: () => void };

/**
 * The prompt's vector from this machine's server, the prompt cleaned first as everything that
 * leaves the vault is, given up after `timeoutMs`; `sent` resolves once the request is on its way.
 */
export function askVector(prompt: string, machine: MachineEmbed, timeoutMs: number): { asked: Promise<EmbedResult>; sent: Promise<void> } {
  let flushed: () => void = () => {};
  const sent = new Promise<void>((resolve) => (flushed = resolve));
  return { asked: embedTexts(machine, [sanitize(prompt)], timeoutMs, { sent: () => flushed(), promptHook: true }), sent };
}
/** The cards' vectors beside the snapshot at `snapshotPath`, read while the server works (see embed/vectors.ts). */
export function openCards(snapshotPath: string, base: string, model: string): OpenVectors {
  return openVectors(vectorsPathOf(snapshotPath), base, model);
}

export function closeCards(cards: OpenVectors): void {
  closeVectors(cards);
}

/** Stand-out by card id, of the nearest cards and of `words`' (see searchOpen); closes what openCards opened. */
export function searchCards(cards: OpenVectors, query: Float32Array, words: readonly number[]): Map<number, number> {
  try {
    return searchOpen(cards, query, words);
  } finally {
    closeVectors(cards);
  }
}
