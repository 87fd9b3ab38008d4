import { SNAPSHOT_VERSION } from "../../src/core/snapshot/format";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_FILE, BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { vaultFiles } from "../../src/core/paths";
import { SnapshotReader } from "../../src/core/snapshot/read";
import { startEmbedStub, type EmbedStub } from "../e2e/embed-stub";
import { cacheDir, cacheName } from "../../hook-bridge/src/code-cache";
import { BRIDGE, ROOT, SAMPLE_VAULT, copyVault, hookJson, runBridgeAsync, stopResidentServers, tempDir } from "../helpers";
import { until } from "../wait";

// A card and a prompt with no word in common, which the stand-in's vectors make mean the same.
const CARD = "reference/kettle-descaling.md";
const CARD_TEXT =
  "---\nname: Kettle descaling\ndescription: Descale the kettle monthly with citric acid\ntype: reference\ntags: [home]\n---\nDescale the kettle monthly with citric acid; rinse twice.\n";
const PROMPT = "how should I get rid of teapot limescale buildup?";
// Every word of the prompt lands on one of the card's: the stand-in's hashed vectors spread
// widely over a vault, so a likeness must be near whole to stand out (embed/calibration.ts).
const CONCEPTS = {
  teapot: "kettle",
  limescale: "descale",
  buildup: "citric",
  rid: "monthly",
  get: "rinse",
  should: "acid",
  how: "with",
  i: "the",
  of: "twice",
};

let stub: EmbedStub;
beforeAll(async () => {
  stub = await startEmbedStub(CONCEPTS);
});
afterAll(() => stub.close());

/**
 * Semantic recall's settings as a person sets them: the server in this machine's own settings
 * file (here one per vault, handed over with --config), the rest in the vault's config.json too.
 */
function configure(vault: string, embed: Record<string, unknown> | undefined): void {
  mkdirSync(join(vault, ".vault-memory"), { recursive: true });
  // A budget no busy machine reaches, unless a test sets its own: the stand-in answers in milliseconds.
  const settings = embed === undefined ? {} : { embed: { url: stub.url, model: "stub-model", budgetMs: PATIENT_MS, ...embed } };
  writeFileSync(vaultFiles.config(vault), JSON.stringify(settings));
  writeFileSync(userFile(vault), JSON.stringify(settings), { mode: 0o600 });
}

// The most a setting allows (5 s): a thousand times what the stand-in takes.
const PATIENT_MS = 5000;
const userFile = (vault: string): string => `${vault}.user-config.json`;
/** The flag that names this vault's machine settings. */
const mine = (vault: string): string[] => ["--config", userFile(vault)];

async function indexed(embed: Record<string, unknown> | undefined): Promise<string> {
  const vault = copyVault(SAMPLE_VAULT, "Semantic vault");
  writeFileSync(join(vault, CARD), CARD_TEXT);
  configure(vault, embed);
  stub.mode = "ok";
  const r = await runBridgeAsync(["index", "--vault", vault, ...mine(vault)]);
  expect(r.status, r.stderr).toBe(0);
  return vault;
}

const recall = (vault: string, prompt = PROMPT) => runBridgeAsync(["recall", "--vault", vault, ...mine(vault)], hookJson(prompt));
const log = (vault: string): string => {
  try {
    return readFileSync(vaultFiles.log(vault), "utf8");
  } catch {
    return "";
  }
};

describe("semantic recall in the prompt hook", () => {
  it("sends the prompt only to the server this computer's settings name, never the snapshot's", async () => {
    const vault = await indexed({ enabled: true });
    expect(SnapshotReader.open(vaultFiles.snapshot(vault)).header.rules.semantic?.url).toBe(stub.url);
    const requests = stub.requests;
    // No settings of this computer (the tests' own empty config folder): the vault's config.json
    // and the snapshot's header both name the server, and neither is followed.
    const plain = await runBridgeAsync(["recall", "--vault", vault], hookJson(PROMPT));
    expect(plain.status).toBe(0);
    expect(stub.requests).toBe(requests);
    expect(log(vault)).toMatch(
      /semantic recall: the snapshot asks for semantic recall, but it is not turned on in .*settings of this computer; answered from words alone/,
    );
    // This computer's server differs from the snapshot's: only this computer's is asked.
    writeFileSync(userFile(vault), JSON.stringify({ embed: { enabled: true, url: "http://127.0.0.1:9", model: "stub-model" } }), { mode: 0o600 });
    expect((await recall(vault)).status).toBe(0);
    expect(stub.requests).toBe(requests);
    expect(log(vault)).toMatch(/127\.0\.0\.1:9|ECONNREFUSED|refused/);
  });

  it("answers from words, saying why, when this computer turns it on before the snapshot has vectors", async () => {
    const vault = await indexed(undefined);
    writeFileSync(userFile(vault), JSON.stringify({ embed: { enabled: true, url: stub.url, model: "stub-model" } }), { mode: 0o600 });
    const r = await recall(vault, "why does my nightly job fail under launchd?");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Vault Memory");
    expect(log(vault)).toMatch(
      /semantic recall: this computer's settings turn it on, but the snapshot has no vectors yet \(run index\); answered from words alone/,
    );
  });

  it("finds a card that shares no word with the prompt, ranked first", async () => {
    const off = await indexed(undefined);
    expect((await recall(off)).stdout).not.toContain(CARD);
    const on = await indexed({ enabled: true });
    const requests = stub.requests;
    const r = await recall(on);
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")[2]).toContain(join(on, CARD));
    expect(stub.requests).toBe(requests + 1);
    expect(stub.texts.at(-1)).toBe(PROMPT);
  });

  it("with it off, writes the very same snapshot and makes no request", async () => {
    const none = await indexed(undefined);
    const off = await indexed({ enabled: false });
    const header = (v: string) => {
      const reader = SnapshotReader.open(vaultFiles.snapshot(v));
      reader.close();
      return reader.header;
    };
    expect(header(off).rules).toEqual(header(none).rules);
    expect(header(off).rules.semantic).toBeUndefined();
    expect(JSON.stringify(header(off).rules)).toBe(JSON.stringify(header(none).rules));
    const before = stub.requests;
    const a = await recall(none, "why does my nightly job fail under launchd?");
    const b = await recall(off, "why does my nightly job fail under launchd?");
    expect(b.stdout.replaceAll(off, "V")).toBe(a.stdout.replaceAll(none, "V"));
    expect(stub.requests).toBe(before);
  });

  it("sends the request before the words are scored", async () => {
    const vault = await indexed({ enabled: true });
    // The snapshot's body damaged after its header: scoring fails, but the request has left.
    const snapshot = vaultFiles.snapshot(vault);
    const bytes = readFileSync(snapshot);
    const body = bytes.indexOf(10) + 1;
    for (let i = body; i < bytes.length; i += 61) bytes[i] ^= 0x55;
    writeFileSync(snapshot, bytes);
    stub.mode = "ok";
    const before = stub.requests;
    const r = await recall(vault);
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(stub.requests).toBe(before + 1);
    expect(stub.texts.at(-1)).toBe(PROMPT);
  });

  it("answers from words, saying why, when semantic recall's code cannot be loaded", async () => {
    const vault = await indexed({ enabled: true });
    const dir = tempDir("vm-no-semantic-");
    for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
    writeFileSync(join(dir, "vault-memory-semantic.cjs"), "//vault-memory-build 0\n(((");
    const before = stub.requests;
    const r = await runBridgeAsync(
      ["recall", "--vault", vault, ...mine(vault)],
      hookJson("why does my nightly job fail under launchd?"),
      join(dir, BRIDGE_FILE),
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Vault Memory");
    expect(stub.requests).toBe(before);
    expect(log(vault)).toMatch(/semantic recall: its code could not be loaded .*; answered from words alone/);
  });

  it("sends the request before recall's own code loads: a broken one still lets it leave, and fails open", async () => {
    const vault = await indexed({ enabled: true });
    const dir = tempDir("vm-no-scoring-");
    for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
    writeFileSync(join(dir, "vault-memory-scoring.cjs"), "//vault-memory-build 0\n(((");
    stub.mode = "ok";
    const before = stub.requests;
    const r = await runBridgeAsync(["recall", "--vault", vault, ...mine(vault)], hookJson(PROMPT), join(dir, BRIDGE_FILE));
    expect([r.status, r.stdout, r.stderr]).toEqual([0, "", ""]);
    expect(stub.requests).toBe(before + 1);
    expect(log(vault)).toMatch(/recall .*Unexpected/);
  });

  // The request leaves before the snapshot is opened; a recall that finds it cannot use the
  // answer ends without it. The stand-in never answers here: a hook that waited would give up at
  // the budget and say so in the log.
  it("never waits for the answer when the snapshot is one recall would not use (another format version)", async () => {
    const vault = await indexed({ enabled: true });
    const snapshot = vaultFiles.snapshot(vault);
    const text = readFileSync(snapshot, "utf8");
    writeFileSync(snapshot, text.replace(`"version":${SNAPSHOT_VERSION},`, `"version":${SNAPSHOT_VERSION + 1},`));
    stub.mode = "hang";
    const r = await recall(vault);
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(log(vault)).not.toMatch(/semantic recall/);
  });

  it("asks nothing for chit-chat, and never waits for the answer to a prompt with no word to look for", async () => {
    const vault = await indexed({ enabled: true });
    const before = stub.requests;
    for (const chat of ["ok continue", "好的，继续", "thanks, that worked!"]) {
      const r = await recall(vault, chat);
      expect([r.status, r.stdout], chat).toEqual([0, ""]);
    }
    expect(stub.requests).toBe(before);
    stub.mode = "hang";
    for (const wordless of ["what is this", "？？"]) {
      const r = await recall(vault, wordless);
      expect([r.status, r.stdout], wordless).toEqual([0, ""]);
    }
    expect(log(vault)).not.toMatch(/semantic recall/);
  });

  it("loads its code through a code cache of its own, rewritten after a run that fell back, never trusted when damaged", async () => {
    const vault = await indexed({ enabled: true });
    const dir = tempDir("vm-semantic-cache-");
    for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
    const cache = join(cacheDir(), cacheName(join(dir, "vault-memory-semantic.cjs")));
    const key = (): string => readFileSync(cache).subarray(0, 96).toString("latin1").trim();
    const run = async (): Promise<string> => {
      const r = await runBridgeAsync(["recall", "--vault", vault, ...mine(vault)], hookJson(PROMPT), join(dir, BRIDGE_FILE));
      expect(r.status).toBe(0);
      return r.stdout;
    };
    // A run that fell back used only part of the code: its cache is replaced by the next full run's.
    stub.mode = "error";
    await run();
    expect(key()).toMatch(/ part [0-9a-f]{8}$/);
    stub.mode = "ok";
    const expected = await run();
    expect(expected.split("\n")[2]).toContain(CARD);
    const build = /^\/\/vault-memory-build (\w+)\n/.exec(readFileSync(join(dir, "vault-memory-semantic.cjs"), "utf8"))![1];
    expect(key()).toMatch(new RegExp(`^${build} ${process.version} ${process.arch} full [0-9a-f]{8}$`));
    const full = readFileSync(cache);
    expect(await run()).toBe(expected);
    expect(readFileSync(cache).equals(full)).toBe(true);
    const damaged = Buffer.from(full);
    for (let i = 96 + 64; i < damaged.length; i += 97) damaged[i] ^= 0xff;
    writeFileSync(cache, damaged);
    expect(await run()).toBe(expected);
    expect(readFileSync(cache).equals(damaged)).toBe(false);
  });

  it("keeps finding by meaning after a session start rebuilt a damaged snapshot, with vectors from the cache and no request", async () => {
    const vault = await indexed({ enabled: true });
    const snapshot = vaultFiles.snapshot(vault);
    writeFileSync(snapshot, readFileSync(snapshot).subarray(0, 200));
    const before = stub.requests;
    expect((await runBridgeAsync(["remind", "--vault", vault, ...mine(vault)])).status).toBe(0);
    expect(stub.requests).toBe(before);
    expect(log(vault)).toMatch(/rebuilt the recall snapshot[\s\S]*semantic recall: 0 texts embedded, \d+ from the cache, \d+ cards/);
    const r = await recall(vault);
    expect(r.stdout.split("\n")[2]).toContain(join(vault, CARD));
    expect(log(vault)).not.toMatch(/answered from words alone/);
  });

  it("answers from words within the budget, exit 0, reason logged, when the server is down, slow, garbage or wrong", async () => {
    // The stand-in's hashed vectors are no judge of meaning, so its veto is off (gate 0): this is
    // about falling back to words, which find the card.
    const vault = await indexed({ enabled: true, budgetMs: 300, gate: 0 });
    const words = "why does my nightly job fail under launchd?";
    stub.mode = "ok";
    const good = (await recall(vault, words)).stdout;
    expect(good).toContain("launchd-cron-path.md");
    for (const [mode, reason] of [
      ["slow", /no answer within 300 ms/],
      ["hang", /no answer within 300 ms/],
      ["error", /HTTP 500/],
      ["garbage", /not JSON/],
      ["wrong-dimension", /prompt's vector has 67 dimensions, the cards' 64/],
    ] as const) {
      stub.mode = mode;
      const r = await recall(vault, words);
      expect(r.status, mode).toBe(0);
      expect(r.stdout, mode).toContain("launchd-cron-path.md");
      expect(log(vault).trim().split("\n").pop(), mode).toMatch(reason);
    }
    stub.mode = "ok";
    configure(vault, { enabled: true, url: "http://127.0.0.1:9", gate: 0 });
    await runBridgeAsync(["index", "--vault", vault, ...mine(vault)]);
    const down = await recall(vault, words);
    expect(down.status).toBe(0);
    expect(down.stdout).toContain("launchd-cron-path.md");
    expect(log(vault)).toMatch(/semantic recall: connect ECONNREFUSED/);
  });

  it("is answered by the resident recall server as by the hook's own process, meaning and fallback alike", async () => {
    const vault = await indexed({ enabled: true, budgetMs: 300 });
    const root = tempDir("vm-resident-");
    const cache = join(root, "vault-memory");
    const resident = { XDG_CACHE_HOME: root, VAULT_MEMORY_RESIDENT: "30" };
    const ask = (prompt: string, session: string, env: NodeJS.ProcessEnv) =>
      runBridgeAsync(["recall", "--vault", vault, ...mine(vault)], hookJson(prompt, { session_id: session }), BRIDGE, env);
    try {
      // The first hook recalls in its own process and starts the server.
      expect((await ask(PROMPT, "first", resident)).stdout).toContain(CARD);
      await until(() => existsSync(cache) && readdirSync(cache).some((n) => existsSync(join(cache, n, "alive"))));
      for (const mode of ["ok", "error"] as const) {
        stub.mode = mode;
        const own = await ask(PROMPT, `own-${mode}`, { VAULT_MEMORY_RESIDENT: "off" });
        const requests = stub.requests;
        const served = await ask(PROMPT, `served-${mode}`, resident);
        expect(served.status, mode).toBe(0);
        expect(served.stderr, mode).toBe("");
        expect(served.stdout.replaceAll("served-", "own-"), mode).toBe(own.stdout);
        // The server asked the embedding server once, as the hook would have.
        expect(stub.requests, mode).toBe(requests + 1);
        const lines = readFileSync(vaultFiles.usageLog(vault), "utf8").trim().split("\n");
        expect(JSON.parse(lines.at(-1) ?? "{}"), mode).toMatchObject({ resident: true });
        if (mode === "ok") expect(served.stdout.split("\n")[2]).toContain(join(vault, CARD));
        else expect(log(vault).trim().split("\n").pop()).toMatch(/HTTP 500/);
      }
    } finally {
      stub.mode = "ok";
      await stopResidentServers(cache);
    }
  });
});

describe("semantic recall in the MCP server's search_memory", () => {
  it("fuses meaning into the search, and searches by words when the server is down", async () => {
    const vault = await indexed({ enabled: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, "hook-bridge", "dist", "vault-memory-mcp.cjs"), "--vault", vault],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: tempDir("vm-mcp-home-"),
        CLAUDE_PLUGIN_OPTION_CONFIG: userFile(vault),
        CLAUDE_PROJECT_DIR: join(tempDir(), "vault-memory"),
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "vault-memory-test", version: "1" });
    await client.connect(transport);
    const search = async (query: string): Promise<string> =>
      ((await client.callTool({ name: "search_memory", arguments: { query } })) as { content: { text: string }[] }).content.map((c) => c.text).join("\n");
    try {
      stub.mode = "ok";
      expect((await search(PROMPT)).split("\n")[1]).toContain(CARD);
      stub.mode = "error";
      const words = await search("launchd nightly job");
      expect(words).toContain("launchd-cron-path.md");
      expect(log(vault)).toMatch(/search: semantic recall: HTTP 500/);
    } finally {
      stub.mode = "ok";
      await client.close();
    }
  });
});

describe("npm run eval with an embedding server", () => {
  it("adds a row that fuses the server's ranking, as the hook does", async () => {
    const { spawn } = await import("node:child_process");
    stub.mode = "ok";
    const before = stub.requests;
    const out = await new Promise<string>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, "scripts", "run-ts.mjs"), "scripts/eval.ts", "--embed", stub.url, "--model", "stub-model", "--sets", "sample"],
        { cwd: ROOT },
      );
      let text = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (text += c));
      child.on("close", () => resolve(text));
    });
    expect(out).toMatch(/Semantic recall: stub-model at http:\/\/127\.0\.0\.1:\d+ \(ollama\)/);
    expect(out).toMatch(/\| sample vault \| 14 \| current \+ meaning \| \d\.\d\d \| \d\.\d\d \| 100% \| \d\.\d \|/);
    expect(stub.requests).toBeGreaterThan(before);
  }, 120_000);
});
