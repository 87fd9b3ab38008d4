/**
 * The resident recall server: one Node process that answers the prompt hook (and the failed-command
 * hook) for one command line and one set of settings, so that each hook spends little beyond bare
 * Node instead of loading and compiling recall's code (client.ts says how a hook finds it).
 *
 * It runs the very recall the hook would have run, with the payload the hook wrote and the answer
 * written back instead of printed. Requests are answered one at a time, in the order found: recall
 * is synchronous but for the embedding request, and one clock (startClockAt) serves each.
 *
 * It leaves by itself: after a while without a request (30 minutes unless set), after MAX_REQUESTS requests or MAX_LIFE_MS
 * (a fresh process now and then, whatever recall's code holds on to), when another server has
 * taken its folder over, and as soon as the bridge's files change (an upgrade, an uninstall),
 * answering that request as "other code" so that its hook recalls in its own process.
 */

import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  utimesSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  watch,
  writeFileSync,
  writeSync,
  type FSWatcher,
} from "node:fs";
import { dirname, join } from "node:path";
import { clearInterval, clearTimeout, setInterval, setTimeout } from "node:timers";
import { forget, markedPid, RESIDENT_FILES as F } from "./client";
import { fileIdentity, readRegularFile } from "../../../src/core/io/read-file";
import { startClockAt } from "../../../src/core/io/clock";

const MAX_LIFE_MS = 8 * 3600_000;
const MAX_REQUESTS = 20_000;
// A payload is at most 8 MB (stdin.ts), and JSON escaping can double it.
const MAX_REQUEST_BYTES = 17 << 20;
// Files a hook gave up on (its answer, its request half written) are cleared after this.
const ABANDONED_MS = 60_000;
// A look at the folder now and then, should the folder's watch miss a request.
const SWEEP_MS = 5_000;

/** Runs recall once: its command line, the payload, where its answer goes, and that the server runs it. */
export type RunRecall = (argv: readonly string[], io?: RecallIo) => Promise<number>;

/** What recall is handed besides its command line, when not run as a hook in its own process. */
export interface RecallIo {
  stdin?: () => string;
  write?: (text: string) => void;
  /** The resident server runs it. */
  resident?: boolean;
  /** Why the resident server did not answer, for the vault's log. */
  missed?: string;
}

export interface ServeOptions {
  /** The server's folder (client.ts, residentFor). */
  dir: string;
  /** The folder it must be in: the person's private cache folder. */
  privateDir: string;
  /** The bridge's files, whose change sends the server away. */
  files: readonly string[];
  /** The hooks' command line, without the deadline each request carries. */
  argv: readonly string[];
  run: RunRecall;
  /** How long it stays without a request (client.ts, residentIdleMs). */
  idleMs: number;
}

/** Serves until it leaves; resolves with the exit code. Another server already serving the folder: 0 at once. */
export function serveRecall(opts: ServeOptions): Promise<number> {
  if (!opts.privateDir || dirname(opts.dir) !== opts.privateDir) {
    // Run by hand: it is the prompt hook's to start (resident/client.ts).
    writeSync(
      2,
      `vault-memory recall-server: the prompt hook starts this, with a folder in ${opts.privateDir || "a private cache folder, which this account has none of"}\n`,
    );
    return Promise.resolve(2);
  }
  if (!ownFolder(opts.dir)) return Promise.resolve(0);
  try {
    // Before the mark, so that a hook that finds the mark finds the bell. Kept if there: the
    // file, not its name, is what a server watches.
    writeFileSync(join(opts.dir, F.bell), "", { flag: "a", mode: 0o600 });
  } catch {
    return Promise.resolve(1);
  }
  if (!takeOver(opts.dir)) return Promise.resolve(0);
  return new Promise((resolve) => new ResidentServer(opts, resolve).start());
}

class ResidentServer {
  private readonly alive: string;
  private readonly started: string;
  private readonly born = Date.now();
  private served = 0;
  private leaving = false;
  private busy = false;
  private again = false;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private watcher: FSWatcher | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly opts: ServeOptions,
    private readonly done: (code: number) => void,
  ) {
    this.alive = join(opts.dir, F.alive);
    this.started = this.stamp();
  }

  start(): void {
    try {
      // Rung by each hook once its request is in; gone, the server is no longer reachable.
      this.watcher = watch(join(this.opts.dir, F.bell), { persistent: true }, (event) => (event === "rename" ? this.leave() : void this.sweep()));
      this.watcher.on("error", () => this.leave());
    } catch {
      this.leave();
      return;
    }
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    process.once("SIGTERM", () => this.leave());
    process.once("SIGINT", () => this.leave());
    this.waitIdle();
    void this.sweep();
  }

  private stamp(): string {
    return this.opts.files.map(fileIdentity).join("|");
  }

  private ours(): boolean {
    try {
      return readRegularFile(this.alive, { maxBytes: 32, noFollow: true }).toString("latin1") === String(process.pid);
    } catch {
      return false;
    }
  }

  private leave(): void {
    if (this.leaving) return;
    this.leaving = true;
    if (this.idle) clearTimeout(this.idle);
    if (this.sweeper) clearInterval(this.sweeper);
    this.watcher?.close();
    // Only its own mark and bell: a server started after this one may have put its own there.
    if (this.ours()) {
      forget(this.alive);
      forget(join(this.opts.dir, F.bell));
    }
    // Requests that came in meanwhile: taken, so that no server runs them, and handed back for
    // their hooks to recall by themselves.
    for (const name of list(this.opts.dir)) {
      if (!name.startsWith(F.request)) continue;
      const id = name.slice(F.request.length);
      const taken = join(this.opts.dir, F.taken + id);
      try {
        renameSync(join(this.opts.dir, name), taken);
      } catch {
        continue;
      }
      forget(taken);
      this.answer(id, { other: true });
    }
    try {
      rmdirSync(this.opts.dir);
    } catch {
      /* files of a hook still waiting, or of a new server */
    }
    this.done(0);
  }

  private waitIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.leave(), this.opts.idleMs);
  }

  private answer(id: string, reply: object): void {
    const partial = join(this.opts.dir, F.partial + F.answer + id);
    try {
      writeFileSync(partial, JSON.stringify(reply), { mode: 0o600 });
      renameSync(partial, join(this.opts.dir, F.answer + id));
    } catch {
      forget(partial);
    }
  }

  /** Answers every request in the folder, one at a time; a call while it runs makes it look again after. */
  private async sweep(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    do {
      this.again = false;
      if (this.leaving) break;
      if (!this.ours() || this.stamp() !== this.started) {
        this.leave();
        break;
      }
      try {
        // The mark's age tells hooks this server still runs (client.ts, ALIVE_FRESH_MS).
        const now = new Date();
        utimesSync(this.alive, now, now);
      } catch {
        /* looked at again next time */
      }
      for (const name of list(this.opts.dir)) {
        if (this.leaving) break;
        if (name.startsWith(F.request)) await this.serve(name.slice(F.request.length));
        else clearAbandoned(this.opts.dir, name);
      }
    } while (this.again && !this.leaving);
    this.busy = false;
  }

  /** One request: taken, run as the hook would have, answered. */
  private async serve(id: string): Promise<void> {
    const taken = join(this.opts.dir, F.taken + id);
    let body: string;
    try {
      // Taken first: a second server (briefly, while one takes over) never answers it too.
      renameSync(join(this.opts.dir, F.request + id), taken);
      body = readRegularFile(taken, { maxBytes: MAX_REQUEST_BYTES, noFollow: true }).toString("utf8");
    } catch {
      forget(taken);
      return;
    }
    forget(taken);
    let out = "";
    try {
      const req = JSON.parse(body) as { stdin?: unknown; startedAt?: unknown; deadline?: unknown };
      const stdin = typeof req.stdin === "string" ? req.stdin : "";
      // The hook's deadline counts from its start, this request's wait for the one before included.
      startClockAt(typeof req.startedAt === "number" ? Math.max(0, Date.now() - req.startedAt) : 0);
      const deadline = typeof req.deadline === "number" && req.deadline > 0 ? ["--deadline-ms", String(req.deadline)] : [];
      await this.opts.run([...this.opts.argv, ...deadline], {
        stdin: () => stdin,
        write: (text) => {
          out += text;
        },
        resident: true,
      });
    } catch {
      // Recall fails open and logs why itself; nothing reaches here but a request that is not one.
      out = "";
    }
    this.answer(id, { out });
    this.served++;
    if (this.served >= MAX_REQUESTS || Date.now() - this.born > MAX_LIFE_MS) this.leave();
    else this.waitIdle();
  }
}

/** Makes the server's folder, or checks the one there: a real folder of this account's. */
function ownFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (typeof process.getuid !== "function" || st.uid === process.getuid());
  } catch {
    return false;
  }
}

/** Marks the folder as served by this process, unless a running server has marked it. */
function takeOver(dir: string): boolean {
  const alive = join(dir, F.alive);
  const mine = join(dir, `${F.partial}${F.alive}-${process.pid}`);
  try {
    writeFileSync(mine, String(process.pid), { mode: 0o600 });
    for (let tries = 0; tries < 2; tries++) {
      try {
        // A link, not a rename: it fails where a mark is, so two servers never both take it.
        linkSync(mine, alive);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") return false;
      }
      // A running server's mark stands; that of one that died or stopped is taken over.
      if (markedPid(alive) !== undefined) return false;
      forget(alive);
    }
    return false;
  } finally {
    forget(mine);
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** An answer no hook came for, or a request never finished: removed once old. */
function clearAbandoned(dir: string, name: string): void {
  if (name === F.alive || name === F.bell) return;
  const path = join(dir, name);
  try {
    if (Date.now() - lstatSync(path).mtimeMs > ABANDONED_MS) unlinkSync(path);
  } catch {
    /* gone already */
  }
}
