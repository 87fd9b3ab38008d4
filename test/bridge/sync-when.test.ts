/**
 * When sync runs by itself, with this computer's settings turning it on: before and after the
 * nightly digest, and in the background when a session starts. A vault's own config.json never
 * turns it on.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { vaultFiles } from "../../src/core/paths";
import { jsonl, line } from "../fixtures/transcript";
import { runBridge, tempDir } from "../helpers";
import { until } from "../wait";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../git-remote";

const card = (name: string): string => `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [t]\n---\n${name}.\n`;
const LONG = "A reply long enough to count as real work in this conversation, with details.";

/** This computer's settings file, with sync on or off, and a stand-in LLM that files nothing. */
function settings(c: Computer, sync: boolean): string {
  const llm = join(tempDir(), "llm.sh");
  writeFileSync(llm, `#!/bin/sh\ncat >/dev/null\necho '{"type":"result","result":"{\\"action\\":\\"skip\\",\\"reason\\":\\"nothing to keep\\"}"}'\n`, {
    mode: 0o755,
  });
  const file = join(c.env.HOME!, "vault-memory.json");
  writeFileSync(file, JSON.stringify({ sync: { enabled: sync }, digest: { binary: llm } }), { mode: 0o600 });
  return file;
}

function queueOne(c: Computer, id: string): void {
  const path = join(tempDir(), `${id}.jsonl`);
  writeFileSync(path, jsonl([line.prompt("question one"), line.reply(LONG), line.prompt("question two"), line.reply(LONG)]));
  captureSession(c.vault, { sessionId: id, transcriptPath: path, cwd: "/work/project", stopHookActive: false }, DEFAULT_QUEUE_RULES);
}

describe.skipIf(!gitAvailable || process.platform === "win32")("sync on its own, when this computer turns it on", () => {
  let remote: Remote;
  let a: Computer;
  let b: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    a = computer(remote.url, "desk", { seed: { "reference/seed.md": card("seed") } });
    b = computer(remote.url, "laptop");
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("syncs before and after the night's digest, so its report reaches the other computer", () => {
    mkdirSync(join(b.vault, "reference"), { recursive: true });
    writeFileSync(join(b.vault, "reference", "from-laptop.md"), card("from laptop"));
    expect(runBridge(["sync", "--vault", b.vault], "", b.env).status).toBe(0);
    queueOne(a, "s-night");
    const r = runBridge(["digest", "--vault", a.vault, "--config", settings(a, true)], "", a.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/sync before the night: .*merged \d+ commits? from origin\/main/);
    expect(r.stdout).toMatch(/sync after the night: committed|sync after the night: nothing to commit here; .*pushed/);
    // The laptop's card came in before the night; the night's report went out after it.
    expect(existsSync(join(a.vault, "reference", "from-laptop.md"))).toBe(true);
    expect(runBridge(["sync", "--vault", b.vault], "", b.env).status).toBe(0);
    expect(b.git("log", "--name-only", "--format=", "-3")).toMatch(/meta\/digest\//);
  });

  it("pulls in the background at a session start, and the new card is recalled at once", async () => {
    mkdirSync(join(b.vault, "reference"), { recursive: true });
    writeFileSync(join(b.vault, "reference", "zeppelin-mast.md"), card("zeppelin mast moorings"));
    expect(runBridge(["sync", "--vault", b.vault], "", b.env).status).toBe(0);
    const mine = settings(a, true);
    // The last sync long ago: one is due (the digest's, a moment ago, would hold it off for an hour).
    writeFileSync(join(vaultFiles.dir(a.vault), "sync-status.json"), JSON.stringify({ finishedAt: "2026-01-01T00:00:00Z", ok: true }));
    const before = readFileSync(join(vaultFiles.dir(a.vault), "sync-status.json"), "utf8");
    expect(runBridge(["remind", "--vault", a.vault, "--config", mine], JSON.stringify({ session_id: "s1", cwd: "/tmp" }), a.env).status).toBe(0);
    expect(readFileSync(vaultFiles.log(a.vault), "utf8")).toContain("started a sync with the vault's remote in the background");
    await until(() => readFileSync(join(vaultFiles.dir(a.vault), "sync-status.json"), "utf8") !== before);
    expect(existsSync(join(a.vault, "reference", "zeppelin-mast.md"))).toBe(true);
    const recalled = runBridge(
      ["recall", "--vault", a.vault],
      JSON.stringify({ prompt: "where are the zeppelin mast moorings?", session_id: "s2", cwd: "/tmp" }),
      a.env,
    );
    expect(recalled.stdout).toContain("zeppelin-mast.md");
  });

  it("is never turned on by the vault's own config.json", () => {
    const mine = settings(a, false);
    writeFileSync(join(vaultFiles.dir(a.vault), "sync-status.json"), JSON.stringify({ finishedAt: "2026-01-01T00:00:00Z", ok: true }));
    writeFileSync(vaultFiles.config(a.vault), JSON.stringify({ sync: { enabled: true } }));
    const log = existsSync(vaultFiles.log(a.vault)) ? readFileSync(vaultFiles.log(a.vault), "utf8").length : 0;
    const r = runBridge(["remind", "--vault", a.vault, "--config", mine], JSON.stringify({ session_id: "s3", cwd: "/tmp" }), a.env);
    expect(r.status).toBe(0);
    expect(readFileSync(vaultFiles.log(a.vault), "utf8").slice(log)).not.toContain("started a sync");
    // The person is told, once, which of the vault's settings this computer does not take.
    expect(r.stdout).toMatch(/sync\.enabled/);
  });
});
