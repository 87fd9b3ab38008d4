/** `sync --json` in a process of its own: its report read back, and a sync that hangs killed with everything it started. */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runSyncChild } from "../../../src/core/sync/child";
import { alive, BRIDGE, tempDir } from "../../helpers";
import { until } from "../../wait";

/** A stand-in bridge: a shell script run as `node bridge sync ...` would be. */
function script(body: string): string {
  const path = join(tempDir(), "bridge.sh");
  writeFileSync(path, body);
  return path;
}

describe.skipIf(process.platform === "win32")("sync in a process of its own", () => {
  it("reads the bridge's report, and says why when there is none", async () => {
    const notRepo = tempDir();
    const r = await runSyncChild({ node: process.execPath, bridge: BRIDGE, vault: notRepo, config: defaultConfig() });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^the vault is not a git repository/);

    const silent = await runSyncChild({
      node: "/bin/sh",
      bridge: script("cat >/dev/null; echo 'fatal: no such thing' >&2; exit 3\n"),
      vault: notRepo,
      config: defaultConfig(),
    });
    expect(silent.error).toBe("the sync ended (exit 3) without a report: fatal: no such thing");
    const other = await runSyncChild({ node: "/bin/sh", bridge: script("cat >/dev/null; echo 'committed 1 file'\n"), vault: notRepo, config: defaultConfig() });
    expect(other.error).toBe("the bridge printed something that is not the sync's: committed 1 file");
  });

  it("kills the sync and what it started when stopped, the path its deadline takes", async () => {
    const pids = join(tempDir(), "pids");
    // A sync stuck on a git that never answers: it and its child wait for ever.
    const bridge = script(`cat >/dev/null; sleep 3600 & echo "$$ $!" > ${JSON.stringify(pids)}; echo '{"progress":"fetching origin/main"}'; wait\n`);
    const stop = new AbortController();
    const lines: string[] = [];
    const r = await runSyncChild({
      node: "/bin/sh",
      bridge,
      vault: tempDir(),
      config: defaultConfig(),
      signal: stop.signal,
      onProgress: (l) => {
        lines.push(l);
        stop.abort();
      },
    });
    expect(lines).toEqual(["fetching origin/main"]);
    expect(r).toMatchObject({ ok: false, error: "the sync was stopped; the next sync finishes what it began" });
    expect(existsSync(pids)).toBe(true);
    const [sync, git] = readFileSync(pids, "utf8").trim().split(" ").map(Number);
    await until(() => !alive(sync) && !alive(git));
  });

  it("stops a sync that runs past its deadline, and says so", async () => {
    const r = await runSyncChild({ node: "/bin/sh", bridge: script("exec sleep 3600\n"), vault: tempDir(), config: defaultConfig(), timeoutMs: 50 });
    expect(r.error).toBe("the sync did not end within 0.05 s and was stopped; the next sync finishes what it began");
  });
});
