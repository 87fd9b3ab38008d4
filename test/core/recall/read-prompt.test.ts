/**
 * A prompt is read once for a recall: the prompt hook asks whether it is an acknowledgement
 * before semantic recall's request, and whether there is anything to look for before fusing;
 * handed the prompt as read, recall asks neither again, and answers as it does from the text.
 */

import { beforeAll, describe, expect, it, vi } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import type { MemoryIndex } from "../../../src/core/index/memory-index";
import { readPrompt, recall, recallWithMeaning, wantsRecall } from "../../../src/core/recall/recall";
import { SAMPLE_VAULT } from "../../helpers";

// Counted, and otherwise themselves.
const calls = vi.hoisted(() => ({ ack: 0, query: 0 }));
vi.mock("../../../src/core/text/chitchat", async (actual) => {
  const m = await actual<typeof import("../../../src/core/text/chitchat")>();
  return { ...m, isAcknowledgement: (p: string) => (calls.ack++, m.isAcknowledgement(p)) };
});
vi.mock("../../../src/core/recall/query", async (actual) => {
  const m = await actual<typeof import("../../../src/core/recall/query")>();
  return { ...m, buildQuery: (...a: Parameters<typeof m.buildQuery>) => (calls.query++, m.buildQuery(...a)) };
});

const config = defaultConfig();
const PROMPT = "the nightly job fails with command not found: claude under launchd";
// Recency counts from now: both recalls are asked at the same moment.
const NOW = Date.parse("2026-12-01T00:00:00Z");
let index: MemoryIndex;
beforeAll(() => {
  index = buildIndexFromDisk(SAMPLE_VAULT, config).index;
});

describe("a prompt read once", () => {
  it("answers as the text does, asking nothing of the prompt again", () => {
    const fromText = recall(PROMPT, index, config.recall, SAMPLE_VAULT, { now: NOW });
    calls.ack = calls.query = 0;
    const read = readPrompt(PROMPT, index, false);
    expect(wantsRecall(read, index)).toBe(true);
    const fromRead = recall(read, index, config.recall, SAMPLE_VAULT, { now: NOW });
    expect(fromRead).toEqual(fromText);
    expect(fromRead.cards[0]?.path).toBe("debugging/launchd-cron-path.md");
    expect(calls).toEqual({ ack: 0, query: 1 });
  });

  it("asks whether it is an acknowledgement once when the caller has not", async () => {
    calls.ack = calls.query = 0;
    const read = readPrompt(PROMPT, index);
    expect(wantsRecall(read, index)).toBe(true);
    const r = await recallWithMeaning(
      read,
      index,
      config.recall,
      SAMPLE_VAULT,
      {},
      { provider: "openai", url: "http://127.0.0.1:1", model: "m", budgetMs: 1000, allowRemote: false, gate: 3, alone: 4, weight: 1 },
      {
        asked: Promise.resolve({ error: "no server here", ms: 0 }),
        search: () => new Map(),
        fellBack: () => {},
      },
    );
    expect(r.cards[0]?.path).toBe("debugging/launchd-cron-path.md");
    expect(calls).toEqual({ ack: 1, query: 1 });
  });

  it("keeps an acknowledgement's own rules: no search wanted", () => {
    const read = readPrompt("ok continue", index);
    expect(read.ack).toBe(true);
    expect(wantsRecall(read, index)).toBe(false);
  });
});
