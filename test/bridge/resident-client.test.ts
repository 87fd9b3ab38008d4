/**
 * How a hook finds its resident recall server (hook-bridge/src/resident/client.ts): which hooks
 * share one, what a server is started with, and which marks of one it trusts.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { markedPid, residentFor, residentIdleMs, RESIDENT_ENV_KEYS } from "../../hook-bridge/src/resident/client";
import { tempDir } from "../helpers";

const cache = tempDir("vm-resident-client-");
const find = (argv: string[], env: NodeJS.ProcessEnv = {}) => residentFor(argv, () => cache, { HOME: "/home/me", ...env });

/** residentFor as a hook run in `cwd` finds it. */
function foundIn(cwd: string, argv: string[]): string | undefined {
  const prev = process.cwd();
  process.chdir(cwd);
  try {
    return find(argv)?.dir;
  } finally {
    process.chdir(prev);
  }
}

describe("the resident recall server a hook asks", () => {
  it("is one for each command line and settings, whatever the deadline", () => {
    const a = find(["recall", "--vault", "/v"])!;
    expect(a.dir.startsWith(join(cache, "recall-"))).toBe(true);
    expect(find(["recall", "--vault", "/v", "--deadline-ms", "300"])!.dir).toBe(a.dir);
    expect(find(["recall", "--vault", "/v", "--deadline-ms", "300"])!.deadlineMs).toBe(300);
    expect(find(["recall", "--vault=/v", "--deadline-ms=250"])!.argv).toEqual(["recall", "--vault=/v"]);
    expect(find(["recall", "--vault", "/w"])!.dir).not.toBe(a.dir);
    expect(find(["recall", "--vault", "/v", "--max-cards", "2"])!.dir).not.toBe(a.dir);
    expect(find(["recall", "--vault", "/v"], { XDG_CONFIG_HOME: "/elsewhere" })!.dir).not.toBe(a.dir);
    // Variables recall never reads do not part hooks from their server.
    expect(find(["recall", "--vault", "/v"], { CLAUDE_CODE_SESSION_ID: "s2", PATH: "/bin" })!.dir).toBe(a.dir);
  });

  it("keeps a deadline the hook would refuse on the command line, for the server to refuse alike", () => {
    for (const bad of ["0", "abc", "-5"]) {
      const r = find(["recall", "--vault", "/v", "--deadline-ms", bad])!;
      expect(r.argv).toEqual(["recall", "--vault", "/v", "--deadline-ms", bad]);
      expect(r.deadlineMs).toBeUndefined();
    }
    expect(find(["recall", "--vault", "/v", "--deadline-ms=-5"])!.argv).toContain("--deadline-ms=-5");
  });

  it("is the hook's folder's own when a path on the command line is relative, in either form", () => {
    const a = tempDir("vm-resident-a-");
    const b = tempDir("vm-resident-b-");
    for (const argv of [
      ["recall", "--vault", "v"],
      ["recall", "--vault=v"],
      ["recall", "--vault", "2024"],
      ["recall", "--vault", "/v", "--config=settings.json"],
    ])
      expect(foundIn(a, argv), argv.join(" ")).not.toBe(foundIn(b, argv));
    expect(foundIn(a, ["recall", "--vault", "/v"])).toBe(foundIn(b, ["recall", "--vault", "/v"]));
  });

  it("is started with the environment recall reads, Node's and TLS's settings among them, and nothing else", () => {
    const r = find(["recall"], { NODE_EXTRA_CA_CERTS: "/etc/my-ca.pem", NODE_OPTIONS: "--max-old-space-size=512", ANTHROPIC_API_KEY: "secret", PATH: "/bin" })!;
    expect(r.env).toEqual({ HOME: "/home/me", NODE_EXTRA_CA_CERTS: "/etc/my-ca.pem", NODE_OPTIONS: "--max-old-space-size=512" });
    expect(RESIDENT_ENV_KEYS).toContain("SSL_CERT_FILE");
    expect(find(["recall"], { NODE_EXTRA_CA_CERTS: "/etc/other.pem" })!.dir).not.toBe(r.dir);
  });

  it("is none where it is turned off, for --help, or without a private cache folder", () => {
    for (const off of ["off", "OFF", "0", "false", "no"]) expect(find(["recall"], { VAULT_MEMORY_RESIDENT: off })).toBeUndefined();
    expect(find(["recall", "--help"])).toBeUndefined();
    expect(residentFor(["recall"], () => "", {})).toBeUndefined();
  });

  it("stays the minutes set, within what a timer can wait", () => {
    expect(residentIdleMs({})).toBe(30 * 60_000);
    expect(residentIdleMs({ VAULT_MEMORY_RESIDENT: "5" })).toBe(5 * 60_000);
    expect(residentIdleMs({ VAULT_MEMORY_RESIDENT: "100000" })).toBe(2 ** 31 - 1);
    expect(residentIdleMs({ VAULT_MEMORY_RESIDENT: "soon" })).toBe(30 * 60_000);
  });
});

describe("a server's mark", () => {
  const dir = tempDir("vm-resident-mark-");
  const mark = (name: string, text: string, ageMs = 0): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    const t = new Date(Date.now() - ageMs);
    utimesSync(path, t, t);
    return path;
  };

  it("names a running process, touched lately", () => {
    expect(markedPid(mark("live", String(process.pid)))).toBe(process.pid);
  });

  it("is refused when it is old, empty, not a process id, or of no process", () => {
    // A process id the system gave another since, or a server stopped, touches it no more.
    expect(markedPid(mark("old", String(process.pid), 60_000))).toBeUndefined();
    for (const text of ["", "0", "-1", "abc", "1.5"]) expect(markedPid(mark(`bad-${text}`, text)), text).toBeUndefined();
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    expect(markedPid(mark("gone", gone))).toBeUndefined();
  });

  it("is never waited on: a FIFO or a folder in its place is no mark", () => {
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(markedPid(fifo)).toBeUndefined();
    mkdirSync(join(dir, "folder"));
    expect(markedPid(join(dir, "folder"))).toBeUndefined();
    expect(markedPid(mark("big", "1".repeat(100)))).toBeUndefined();
  });
});
