/**
 * A real git remote for sync's tests: a bare repository served by `git daemon` on 127.0.0.1,
 * pushes allowed, and "computers" that each clone it with a HOME of their own.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join } from "node:path";
import { tempDir } from "./helpers";
import { until } from "./wait";

export const gitAvailable = spawnSync("git", ["daemon", "--help"], { stdio: "ignore" }).status === 0;

export interface Remote {
  url: string;
  /** Stops the daemon: the remote is then down. */
  stop(): Promise<void>;
}

export interface Computer {
  vault: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
}

/** A free port on loopback, by asking the system for one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ host: "127.0.0.1", port }, () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
}

/** A bare repository with one commit on `main`, served by git daemon until `stop`. */
export async function startRemote(): Promise<Remote> {
  const root = tempDir("vm-remote-");
  const bare = join(root, "memory.git");
  spawnSync("git", ["init", "-q", "--bare", "-b", "main", bare]);
  const port = await freePort();
  const daemon: ChildProcess = spawn(
    "git",
    ["daemon", "--reuseaddr", "--listen=127.0.0.1", `--port=${port}`, `--base-path=${root}`, "--export-all", "--enable=receive-pack", root],
    { stdio: "ignore" },
  );
  const ended = new Promise<void>((resolve) => daemon.once("exit", () => resolve()));
  await until(() => accepts(port));
  return {
    url: `git://127.0.0.1:${port}/memory.git`,
    stop: async () => {
      daemon.kill("SIGTERM");
      await ended;
    },
  };
}

/** A computer: a HOME of its own and a clone of the remote as its vault; the first one seeds the remote. */
export function computer(url: string, name: string, opts: { seed?: Record<string, string>; identity?: boolean } = {}): Computer {
  const home = tempDir(`vm-home-${name}-`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
  const vault = join(home, "Memory");
  const run = (cwd: string, args: string[]): string => {
    const r = spawnSync("git", ["-C", cwd, ...args], { env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  run(home, ["clone", "-q", url, vault]);
  if (opts.identity !== false) {
    run(vault, ["config", "user.name", name]);
    run(vault, ["config", "user.email", `${name}@example.com`]);
  }
  if (opts.seed) {
    for (const [path, text] of Object.entries(opts.seed)) {
      mkdirSync(join(vault, path, ".."), { recursive: true });
      writeFileSync(join(vault, path), text);
    }
    run(vault, ["add", "-A"]);
    run(vault, ["-c", "user.name=seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "seed"]);
    run(vault, ["push", "-q", "-u", "origin", "main"]);
  }
  return { vault, env, git: (...args) => run(vault, args) };
}
