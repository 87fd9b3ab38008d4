import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../../src/core/config";
import { isCard } from "../../../src/core/vault/scan";
import { VectorCache, cosine, quantize, textKey } from "../../../src/core/embed/cache";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { embedTexts } from "../../../src/core/embed/client";
import { DEFAULT_EMBED, endpointProblem, isLoopback } from "../../../src/core/embed/settings";
import { vaultFiles } from "../../../src/core/paths";
import { startEmbedStub, STUB_DIM, type EmbedStub } from "../../e2e/embed-stub";
import { CORPUS, HAS_CORPUS, NO_CORPUS, SAMPLE_VAULT, copyVault, runBridgeAsync, runBridgeMeasured, withMachineSettings } from "../../helpers";
import { cardQuestions, cardTexts, PROBE_TEXT } from "../../../src/core/embed/embed-cards";
import { BACKGROUND_PROMPTS, MIN_CALIBRATION_CARDS } from "../../../src/core/embed/calibration";
import { vectorsPathOf, type VectorsHeader } from "../../../src/core/embed/vectors";
import { parseCard } from "../../../src/core/card/card";

let stub: EmbedStub;
beforeAll(async () => {
  stub = await startEmbedStub();
});
afterAll(() => stub.close());

const settings = (over: Partial<typeof DEFAULT_EMBED> = {}) => ({ ...DEFAULT_EMBED, url: stub.url, ...over });

const machine = withMachineSettings();

/** Semantic recall on, as a person turns it on: the server in this computer's settings, the tuning in the vault's too. */
function withEmbedding(vault: string, over: Record<string, unknown> = {}): void {
  mkdirSync(join(vault, ".vault-memory"), { recursive: true });
  const settings = { embed: { enabled: true, url: stub.url, model: "stub-model", ...over } };
  writeFileSync(vaultFiles.config(vault), JSON.stringify(settings));
  machine.write(settings);
}

// Each way: the deadline armed and the connection let go of at once, and the prompt hook's, after
// the turn the request leaves in and after the answer has been used.
describe.each([
  ["everywhere but the prompt hook", false],
  ["as the prompt hook", true],
] as const)("the embedding client, %s", (_way, promptHook) => {
  it.each(["ollama", "openai"] as const)("gets one vector per text from %s's API", async (provider) => {
    stub.mode = "ok";
    const r = await embedTexts(settings({ provider }), ["a vault in sync", "phone and laptop"], 5000, { promptHook });
    if ("error" in r) throw new Error(r.error);
    expect(r.vectors.map((v) => v.length)).toEqual([STUB_DIM, STUB_DIM]);
  });

  it.each([
    ["zero", "a vector is all zeros"],
    ["huge", "a vector is not all finite numbers"],
  ] as const)("refuses a prompt's vector of %s, as index refuses a card's", async (as, error) => {
    stub.mode = "ok";
    stub.bad = { word: "kettle", as };
    try {
      const r = await embedTexts(settings(), ["descale the kettle"], 5000, { promptHook });
      expect("error" in r && r.error).toBe(error);
    } finally {
      stub.bad = undefined;
    }
  });

  it("reaches a server named localhost, and says when the request has left", async () => {
    stub.mode = "ok";
    let sent = 0;
    const r = await embedTexts(settings({ url: stub.url.replace("127.0.0.1", "localhost") }), ["x"], 5000, { promptHook, sent: () => sent++ });
    expect("vectors" in r && r.vectors.length).toBe(1);
    expect(sent).toBe(1);
  });

  it.each([
    ["error", /^HTTP 500: model not loaded/],
    ["garbage", /not JSON/],
    ["hang", /no answer within 200 ms/],
  ] as const)("says what went wrong when the server answers %s", async (mode, error) => {
    stub.mode = mode;
    const r = await embedTexts(settings(), ["x"], 200, { promptHook });
    expect("error" in r && r.error).toMatch(error);
    stub.mode = "ok";
  });

  it("says so when nothing listens", async () => {
    const down = await embedTexts(settings({ url: "http://127.0.0.1:9" }), ["x"], 2000, { promptHook });
    expect("error" in down && down.error).toMatch(/ECONNREFUSED.*127\.0\.0\.1:9/);
  });
});

describe("the embedding client", () => {
  it("contacts no other computer unless allowed", async () => {
    expect(endpointProblem("http://10.0.0.5:11434", false)).toMatch(/not this computer/);
    expect(endpointProblem("http://10.0.0.5:11434", true)).toBe("");
    expect(endpointProblem("http://[::1]:11434", false)).toBe("");
    for (const host of ["127.0.0.1", "127.255.3.4", "localhost", "LOCALHOST", "::1", "[::1]"]) expect(isLoopback(host), host).toBe(true);
    for (const host of ["127.0.0.1.example.com", "1127.0.0.1", "127.0.0", "127.0.0.x", "128.0.0.1", "127..0.1", "example.com", "[::2]"])
      expect(isLoopback(host), host).toBe(false);
    expect(endpointProblem("file:///etc/passwd", true)).toMatch(/not http/);
    expect(endpointProblem("http://me:pw@localhost:1", false)).toMatch(/user name or password/);
    const remote = await embedTexts(settings({ url: "http://example.com" }), ["x"], 2000);
    expect("error" in remote && remote.error).toMatch(/not this computer/);
  });

  it("keeps vectors small: int8 of unit vectors, cosine barely changed", () => {
    const a = Float32Array.from([3, 4, 0, 1]);
    const b = Float32Array.from([4, 3, 1, 0]);
    const exact = (3 * 4 + 4 * 3) / (Math.hypot(3, 4, 0, 1) * Math.hypot(4, 3, 1, 0));
    expect(cosine(quantize(a), quantize(b))).toBeCloseTo(exact, 2);
    expect(textKey("x")).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("semantic recall's settings", () => {
  it("are off by default, and a wrong value falls back with a problem", () => {
    expect(mergeConfig(undefined).embed.enabled).toBe(false);
    const problems: string[] = [];
    const c = mergeConfig({ embed: { enabled: "yes", provider: "chroma", budgetMs: 1, url: "" } }, problems);
    expect(c.embed).toEqual(DEFAULT_EMBED);
    expect(problems).toEqual([
      'embed.enabled: expected true or false, got "yes"; using false',
      'embed.provider: expected "ollama" or "openai", got "chroma"; using "ollama"',
      'embed.url: expected a non-empty string, got ""; using "http://127.0.0.1:11434"',
      "embed.budgetMs: expected a number of milliseconds from 10 to 5000, got 1; using 150",
    ]);
  });
});

describe("a card's recall hints, as they leave the computer to be embedded", () => {
  const card = (front: string): ReturnType<typeof parseCard> => parseCard("debugging/x.md", `---\nname: X\n${front}---\nBody.\n`, 0);

  it("are cleaned in one text with the card's name and description, as its first piece is", () => {
    const hints = (...hs: string[]): string => `questions:\n${hs.map((h) => `  - ${JSON.stringify(h)}\n`).join("")}`;
    expect(cardQuestions(card(`description: two\n  lines\n${hints("why does it fail", "how to fix it")}`), "questions")).toEqual([
      "why does it fail",
      "how to fix it",
    ]);
    // A private passage within one hint, and a secret.
    expect(
      cardQuestions(card(hints("how do I <private>reach prod</private> deploy", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB fails")), "questions"),
    ).toEqual(["how do I  deploy", "token [REDACTED] fails"]);
    // A private passage opened in one hint and closed in the next: neither is sent, nor any other.
    const spanning = card(hints("<private>how do I reach the prod database", "at 10.1.2.3 as root with pw hunter2</private>", "why is it slow"));
    expect(cardQuestions(spanning, "questions")).toEqual([]);
    expect(cardTexts(spanning, "questions").join("\n")).not.toMatch(/hunter2|10\.1\.2\.3/);
    // Opened in the description and never closed: nothing after it leaves.
    expect(cardQuestions(card(`description: see <private>the notes\n${hints("what is the password")}`), "questions")).toEqual([]);
  });
});

describe("index with semantic recall on", () => {
  it("embeds every card once, then only what changed, and starts afresh for another model", async () => {
    stub.mode = "ok";
    const vault = copyVault(SAMPLE_VAULT, "Embedded vault");
    withEmbedding(vault);
    // The cards' texts the stub was sent, less the probe each run asks first (see checkModel) and
    // the background prompts calibration asks for once (see calibration.ts).
    const sent = (): string[] => stub.texts.filter((t) => t !== PROBE_TEXT && !BACKGROUND_PROMPTS.includes(t));
    const before = sent().length;
    const first = await runBridgeAsync(["index", "--vault", vault]);
    expect(first.status).toBe(0);
    const embedded = sent().length - before;
    expect(embedded).toBeGreaterThanOrEqual(15);
    expect(first.stdout).toMatch(new RegExp(`semantic recall: ${embedded} texts embedded, 0 from the cache, 1[45] cards with stub-model`));
    const cache = VectorCache.open(vaultFiles.embeddings(vault), "stub-model");
    // And the probe's, kept to know the model again, and the background's.
    expect([cache.size, cache.dim]).toEqual([embedded + 1 + BACKGROUND_PROMPTS.length, STUB_DIM]);

    const second = await runBridgeAsync(["index", "--vault", vault]);
    expect(second.stdout).toMatch(new RegExp(`semantic recall: 0 texts embedded, ${embedded} from the cache`));
    expect(sent().length - before).toBe(embedded);

    const card = join(vault, "debugging", "launchd-cron-path.md");
    writeFileSync(card, readFileSync(card, "utf8").replace(/^description: .*$/m, "description: launchd and cron run with a short PATH"));
    const third = await runBridgeAsync(["index", "--vault", vault]);
    expect(third.stdout).toMatch(/semantic recall: 1 text embedded/);
    expect(sent().at(-1)).toMatch(/launchd and cron run with a short PATH/);

    withEmbedding(vault, { model: "another-model" });
    const fourth = await runBridgeAsync(["index", "--vault", vault]);
    expect(fourth.stdout).toMatch(new RegExp(`semantic recall: ${embedded} texts embedded, 0 from the cache`));

    // The same model with its cards' texts marked otherwise: vectors of another kind, made again.
    withEmbedding(vault, { model: "another-model", passagePrefix: "passage: " });
    const fifth = await runBridgeAsync(["index", "--vault", vault]);
    expect(fifth.stdout).toMatch(new RegExp(`semantic recall: ${embedded} texts embedded, 0 from the cache`));
    expect(stub.texts.at(-1)).toMatch(/^passage: /);
  });

  it("embeds each card's recall hints as questions, once, beside its text and calibrated apart", async () => {
    stub.mode = "ok";
    const vault = copyVault(SAMPLE_VAULT, "Hinted vault");
    // Marks on both sides, so that what the stub was sent says which side each text went as.
    withEmbedding(vault, { queryPrefix: "query: ", passagePrefix: "passage: " });
    const cards = readdirSync(vault, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith(".md") && isCard(p, defaultConfig()));
    expect(cards.length).toBeGreaterThanOrEqual(MIN_CALIBRATION_CARDS);
    for (const [i, p] of cards.entries()) {
      const file = join(vault, p);
      writeFileSync(file, readFileSync(file, "utf8").replace(/^---\n/, `---\nquestions:\n  - what went wrong with thing ${i}\n  - how do I fix thing ${i}\n`));
    }
    const hints = cards.flatMap((_, i) => [`what went wrong with thing ${i}`, `how do I fix thing ${i}`]);
    const from = stub.texts.length;
    const first = await runBridgeAsync(["index", "--vault", vault]);
    expect(first.stdout).toMatch(new RegExp(`cards with stub-model at \\S+ \\(the recall hints of ${cards.length} as questions\\); calibrated`));
    const sent = stub.texts.slice(from);
    for (const h of hints) expect(sent).toContain(`query: ${h}`);
    expect(sent.filter((t) => t.startsWith("passage: ") && hints.some((h) => t.endsWith(h)))).toEqual([]);
    const header = JSON.parse(readFileSync(vectorsPathOf(vaultFiles.snapshot(vault)), "latin1").split("\n")[0]) as VectorsHeader;
    expect(header.questions).toBe(hints.length);
    expect(header.questionCalibration?.spread).toBeGreaterThan(0);
    expect(header.embedded).toBe(cards.length);

    expect((await runBridgeAsync(["index", "--vault", vault])).stdout).toMatch(/semantic recall: 0 texts embedded/);
    // One hint rewritten: that hint is asked for again, as a question.
    const file = join(vault, cards[0]);
    writeFileSync(file, readFileSync(file, "utf8").replace("how do I fix thing 0", "how do I mend thing 0"));
    const third = await runBridgeAsync(["index", "--vault", vault]);
    // The card's first piece holds its hints too (see cardTexts).
    expect(third.stdout).toMatch(/semantic recall: 2 texts embedded/);
    expect(stub.texts.at(-2)).toMatch(/^passage: [^]*how do I mend thing 0/);
    expect(stub.texts.at(-1)).toBe("query: how do I mend thing 0");
  });

  it("says so when too few cards have hints for them to count", async () => {
    stub.mode = "ok";
    const vault = copyVault(SAMPLE_VAULT, "Few hints");
    withEmbedding(vault);
    const cards = readdirSync(vault, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith(".md") && isCard(p, defaultConfig()));
    for (const p of cards.slice(0, 2))
      writeFileSync(join(vault, p), readFileSync(join(vault, p), "utf8").replace(/^---\n/, "---\nquestions:\n  - how do I fix it\n"));
    const run = await runBridgeAsync(["index", "--vault", vault]);
    expect(run.stdout).toMatch(
      new RegExp(
        `${cards.length} cards with stub-model at \\S+ \\(recall hints count from ${MIN_CALIBRATION_CARDS} cards with hints; 2 have them\\); calibrated`,
      ),
    );
    const header = JSON.parse(readFileSync(vectorsPathOf(vaultFiles.snapshot(vault)), "latin1").split("\n")[0]) as VectorsHeader;
    expect(header.questions).toBeUndefined();
  });

  it("keeps a card's text when the server refuses a vector for one of its hints", async () => {
    stub.mode = "ok";
    const vault = copyVault(SAMPLE_VAULT, "Refused hint");
    withEmbedding(vault, { queryPrefix: "query: ", passagePrefix: "passage: " });
    const cards = readdirSync(vault, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith(".md") && isCard(p, defaultConfig()));
    for (const [i, p] of cards.entries()) {
      const file = join(vault, p);
      writeFileSync(file, readFileSync(file, "utf8").replace(/^---\n/, `---\nquestions:\n  - how do I fix thing ${i}\n`));
    }
    // Only the question's text, as sent with its mark, is refused: the card's first piece holds the same words.
    stub.bad = { word: "query: how do i fix thing 0", as: "zero" };
    try {
      const run = await runBridgeAsync(["index", "--vault", vault]);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(
        new RegExp(
          `${cards.length} cards with stub-model at \\S+ \\(the recall hints of ${cards.length - 1} as questions\\); the recall hints of 1 card left out, the server's vector is all zeros for ${cards[0]}; calibrated`,
        ),
      );
    } finally {
      stub.bad = undefined;
    }
    const header = JSON.parse(readFileSync(vectorsPathOf(vaultFiles.snapshot(vault)), "latin1").split("\n")[0]) as VectorsHeader;
    expect([header.embedded, header.questions]).toEqual([cards.length, cards.length - 1]);
  });

  it("embeds every card again when another model answers under the same name, and never mixes the two", async () => {
    stub.mode = "ok";
    const vault = copyVault(SAMPLE_VAULT, "Replaced model");
    withEmbedding(vault);
    const first = await runBridgeAsync(["index", "--vault", vault]);
    const embedded = Number(/semantic recall: (\d+) texts embedded/.exec(first.stdout)?.[1]);
    expect(embedded).toBeGreaterThanOrEqual(15);
    // Same address kind, same name, same dimension: other weights (its words land elsewhere).
    const other = await startEmbedStub({ probe: "zebra", model: "zebra", this: "zebra", still: "zebra" });
    try {
      withEmbedding(vault, { url: other.url });
      const second = await runBridgeAsync(["index", "--vault", vault]);
      expect(second.stdout).toMatch(
        new RegExp(
          `semantic recall: ${embedded} texts embedded, 0 from the cache, 1[45] cards with stub-model at ${other.url}; stub-model answered otherwise than the model that made the cached vectors, so every card was embedded again`,
        ),
      );
      // And the same one again: nothing to do.
      const third = await runBridgeAsync(["index", "--vault", vault]);
      expect(third.stdout).toMatch(new RegExp(`semantic recall: 0 texts embedded, ${embedded} from the cache`));
    } finally {
      await other.close();
    }
  });

  it("leaves word recall complete and says why once, when the server is down, failing or wrong", async () => {
    for (const mode of ["error", "garbage", "wrong-dimension"] as const) {
      const vault = copyVault(SAMPLE_VAULT, `Failing ${mode}`);
      withEmbedding(vault);
      // A cache of the right dimension first, so a server answering another one is caught.
      stub.mode = "ok";
      if (mode === "wrong-dimension") {
        await runBridgeAsync(["index", "--vault", vault]);
        const card = join(vault, "debugging", "launchd-cron-path.md");
        writeFileSync(card, readFileSync(card, "utf8") + "\nOne more line.\n");
      }
      stub.mode = mode;
      const r = await runBridgeAsync(["index", "--vault", vault]);
      expect(r.status, mode).toBe(0);
      expect(r.stdout).toMatch(/^indexed 1[45] cards/);
      expect(existsSync(vaultFiles.snapshot(vault))).toBe(true);
      // A server answering another dimension is another model under the same name: every card is
      // embedded again, never mixed with the old vectors; the others stop the run.
      if (mode === "wrong-dimension")
        expect(r.stdout).toMatch(
          /semantic recall: \d+ texts embedded, 0 from the cache, 1[45] cards with stub-model .*answered otherwise than the model that made the cached vectors, so every card was embedded again/,
        );
      else {
        expect(r.stderr.match(/semantic recall: stopped/g), mode).toHaveLength(1);
        expect(r.stderr).toMatch(/Word recall is complete/);
      }
    }
    stub.mode = "ok";
    const down = copyVault(SAMPLE_VAULT, "Down");
    withEmbedding(down, { url: "http://127.0.0.1:9" });
    const r = await runBridgeAsync(["index", "--vault", down]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/semantic recall: stopped \(connect ECONNREFUSED 127\.0\.0\.1:9; stub-model at http:\/\/127\.0\.0\.1:9\)/);
  });

  // The run's budget, not each request's two minutes, bounds the step: set by a flag here and
  // by the setting there, at the least the setting takes. The durations are not asserted; a run
  // that did not end is killed. On a slow machine the budget may run out before the first
  // request leaves, which is said too.
  it.each([
    ["hang", ["--embed-budget-sec", "1"], {}],
    ["trickle", [], { runBudgetSec: 1 }],
  ] as const)("ends index and embed within the budget when the server answers %s, saying which server and what happened", async (mode, flags, setting) => {
    const vault = copyVault(SAMPLE_VAULT, `Budget ${mode}`);
    withEmbedding(vault, setting);
    stub.mode = mode;
    try {
      const index = await runBridgeMeasured(["index", "--vault", vault, ...flags]);
      expect(index.status, index.stderr).toBe(0);
      expect(index.stdout).toMatch(/^indexed 1[45] cards/);
      expect(existsSync(vaultFiles.snapshot(vault))).toBe(true);
      expect(index.stderr).toMatch(
        new RegExp(
          `semantic recall: stopped \\((no answer within the 1 s budget, with|the 1 s budget ran out with) 0 of \\d+ texts asked for; stub-model at ${stub.url}\\)`,
        ),
      );
      expect(index.stderr).toMatch(/warning: the snapshot is written and recall works by words; the meaning of the cards without vectors was skipped/);
      expect(index.stderr).toMatch(/embedding \d+ texts with stub-model at .*, within 1 s/);
      const embed = await runBridgeMeasured(["embed", "--vault", vault, ...flags]);
      expect(embed.status).toBe(1);
      expect(embed.stderr).toMatch(new RegExp(`semantic recall: stopped \\((no answer within the|the) 1 s budget.*stub-model at ${stub.url}\\)`));
    } finally {
      stub.mode = "ok";
    }
  });

  it.each([
    ["zero", /the server's vector is all zeros for reference\/kettle-descaling\.md/],
    ["huge", /the server's vector is not all finite numbers for reference\/kettle-descaling\.md/],
  ] as const)("refuses a vector of %s for its card, caches none of it, and embeds the rest", async (as, reason) => {
    const vault = copyVault(SAMPLE_VAULT, `Bad vectors ${as}`);
    writeFileSync(
      join(vault, "reference", "kettle-descaling.md"),
      "---\nname: Kettle descaling\ndescription: Descale the kettle monthly\ntype: reference\n---\nDescale the kettle monthly with citric acid.\n",
    );
    withEmbedding(vault);
    stub.mode = "ok";
    stub.bad = { word: "descale", as };
    try {
      const index = await runBridgeAsync(["index", "--vault", vault]);
      expect(index.status).toBe(0);
      expect(index.stderr).toMatch(/semantic recall: \d+ texts embedded, 0 from the cache, 1[45] cards with stub-model at .*; 1 card not embedded, /);
      expect(index.stderr).toMatch(reason);
      const cache = VectorCache.open(vaultFiles.embeddings(vault), "stub-model");
      const kettle = parseCard("reference/kettle-descaling.md", readFileSync(join(vault, "reference", "kettle-descaling.md"), "utf8"));
      for (const text of cardTexts(kettle, "questions")) expect(cache.peek(textKey(text))).toBeUndefined();
      expect(cache.size).toBeGreaterThanOrEqual(15);
      const embed = await runBridgeAsync(["embed", "--vault", vault]);
      expect(embed.status).toBe(1);
      expect(embed.stderr).toMatch(reason);
    } finally {
      stub.bad = undefined;
    }
  });

  it("makes no request and writes no vectors when it is off", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Off");
    const before = stub.requests;
    const r = await runBridgeAsync(["index", "--vault", vault]);
    expect(r.stdout).not.toMatch(/semantic/);
    expect(stub.requests).toBe(before);
    expect(existsSync(vaultFiles.embeddings(vault))).toBe(false);
  });
});

describe("the plain HTTP the hook speaks", () => {
  it("reads a whole answer, chunked or not, and says when it is not HTTP", async () => {
    const { parseHttp } = await import("../../../src/core/embed/http");
    expect(parseHttp(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))).toEqual({ status: 200, text: "{}" });
    expect(parseHttp(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n'))).toEqual({
      status: 200,
      text: '{"a":1}',
    });
    expect(parseHttp(Buffer.from("HTTP/1.0 500 Oops\r\n\r\nmodel not loaded"))).toEqual({ status: 500, text: "model not loaded" });
    expect(parseHttp(Buffer.from(""))).toEqual({ error: "socket hang up" });
    expect(parseHttp(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toEqual({ error: "the answer is not HTTP" });
    expect(parseHttp(Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))).toEqual({ error: "the answer's chunks are broken" });
    expect(parseHttp(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"))).toEqual({ error: "the answer is cut short" });
    expect(parseHttp(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}\r\n"))).toEqual({ status: 200, text: "{}" });
  });

  // A server that answers and leaves the connection open: the answer is whole by its length or
  // its last chunk, and must be taken then, not at the deadline.
  async function openEnded(answer: (socket: Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.once("data", () => answer(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
    };
  }
  const vector = JSON.stringify({ embeddings: [[0.5, -0.25, 1]] });

  it.each([false, true])("takes an answer as soon as it is whole, though the server keeps the connection (as the prompt hook: %s)", async (promptHook) => {
    for (const write of [
      (s: Socket) => s.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${vector.length}\r\n\r\n${vector}`),
      // The last chunk in a write of its own.
      (s: Socket) => (
        s.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${vector.length.toString(16)}\r\n${vector}\r\n`),
        setTimeout(() => s.write("0\r\n\r\n"), 30)
      ),
      // In pieces, the head apart from the body.
      (s: Socket) => (
        s.write("HTTP/1.1 200 OK\r\nContent-Le"),
        setTimeout(() => s.write(`ngth: ${vector.length}\r\n\r\n${vector.slice(0, 5)}`), 20),
        setTimeout(() => s.write(vector.slice(5)), 40)
      ),
      (s: Socket) =>
        s.write(
          `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n${vector.slice(0, 5)}\r\n${(vector.length - 5).toString(16)}\r\n${vector.slice(5)}\r\n0\r\n\r\n`,
        ),
    ]) {
      const server = await openEnded(write);
      try {
        // Were the answer taken only when the connection ends, the deadline, far beyond the
        // test's own timeout, would fail the test.
        const r = await embedTexts(settings({ url: server.url }), ["x"], 3_600_000, { promptHook });
        expect(r).toMatchObject({ vectors: [Float32Array.of(0.5, -0.25, 1)] });
      } finally {
        await server.close();
      }
    }
  });

  // net tries each address localhost resolves to (autoSelectFamily, on by default since Node 20).
  it("reaches a server on ::1 alone by the name localhost", async () => {
    const server = createServer((s) => s.once("data", () => s.end(`HTTP/1.1 200 OK\r\nContent-Length: ${vector.length}\r\n\r\n${vector}`)));
    const listening = await new Promise<boolean>((resolve) => server.once("error", () => resolve(false)).listen(0, "::1", () => resolve(true)));
    if (!listening) return void console.log("this computer has no IPv6 loopback: the ::1 case is not run");
    try {
      const { port } = server.address() as AddressInfo;
      const r = await embedTexts(settings({ url: `http://localhost:${port}` }), ["x"], 3000, { promptHook: true });
      expect(r).toMatchObject({ vectors: [Float32Array.of(0.5, -0.25, 1)] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each([false, true])("gives up on a stream that is not HTTP at once rather than at the deadline (as the prompt hook: %s)", async (promptHook) => {
    const server = await openEnded((s) => s.write(Buffer.alloc(64 << 10, "x")));
    try {
      const r = await embedTexts(settings({ url: server.url }), ["x"], 3_600_000, { promptHook });
      expect("error" in r && r.error).toBe("the answer is not HTTP");
    } finally {
      await server.close();
    }
  });

  it.each([false, true])("says so when the server closes before its answer is whole (as the prompt hook: %s)", async (promptHook) => {
    const server = await openEnded((s) => s.end(`HTTP/1.1 200 OK\r\nContent-Length: ${vector.length}\r\n\r\n${vector.slice(0, 8)}`));
    try {
      const r = await embedTexts(settings({ url: server.url }), ["x"], 3000, { promptHook });
      expect("error" in r && r.error).toBe("the answer is cut short");
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!HAS_CORPUS)(`index with semantic recall on the English help vault${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, () => {
  it("embeds a copy with progress, then nothing, then the one card edited", async () => {
    stub.mode = "ok";
    const vault = copyVault(join(CORPUS, "en"), "en-embedded");
    withEmbedding(vault);
    const first = await runBridgeAsync(["index", "--vault", vault]);
    const m = /semantic recall: (\d+) texts embedded, 0 from the cache, (\d+) cards/.exec(first.stdout);
    expect(m, first.stdout + first.stderr).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThan(150);
    expect((await runBridgeAsync(["index", "--vault", vault])).stdout).toMatch(new RegExp(`semantic recall: 0 texts embedded, ${m![1]} from the cache`));
    const card = join(vault, "Getting started", "Back up your Obsidian files.md");
    // A new description: the card's first piece changes, its body's pieces do not.
    writeFileSync(card, readFileSync(card, "utf8").replace(/^---\n/, "---\ndescription: Keep copies of the vault elsewhere\n"));
    expect((await runBridgeAsync(["index", "--vault", vault])).stdout).toMatch(/semantic recall: 1 text embedded/);
  }, 120_000);
});
