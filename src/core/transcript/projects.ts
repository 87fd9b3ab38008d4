/** Where Claude Code keeps its transcripts, and the ones a folder of them holds. */

import { lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { homeDir } from "../io/home";
import { kindOf } from "../io/read-file";
import { isSafeSessionId } from "../session-id";

/** `~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects` when Claude Code is told to keep its files elsewhere. */
export function claudeProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.CLAUDE_CONFIG_DIR || join(homeDir(env), ".claude"), "projects");
}

export interface TranscriptFile {
  path: string;
  /** The file's name less `.jsonl`: Claude Code names a session's transcript after its id. */
  sessionId: string;
  size: number;
  mtimeMs: number;
}

export interface TranscriptListing {
  files: TranscriptFile[];
  /** Files named like a transcript that are not read, with why: a FIFO, a link, another account's file. */
  refused: { path: string; why: string }[];
  /** Set when the folder held more than `maxFiles` transcripts: the rest were not listed. */
  cut?: number;
}

export interface ListOptions {
  /** The account whose files are read; a transcript another account owns is refused. Undefined: any (Windows). */
  uid?: number;
  /** At most this many transcripts are listed. */
  maxFiles?: number;
}

// Far past a person's years of sessions; a folder holding more is not Claude Code's alone.
export const MAX_TRANSCRIPT_FILES = 100_000;

/**
 * The transcripts of a Claude Code projects folder: `<dir>/<project>/<session>.jsonl`, one level
 * down and no further (a session's sub-agents, in `<session>/subagents/`, are not its
 * conversation). Nothing is followed through a link, nothing that is not a regular file is listed,
 * and nothing is opened: a FIFO named `x.jsonl` cannot hang the listing.
 */
export function listTranscripts(dir: string, opts: ListOptions = {}): TranscriptListing {
  const max = opts.maxFiles ?? MAX_TRANSCRIPT_FILES;
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  const out: TranscriptListing = { files: [], refused: [] };
  let beyond = 0;
  for (const project of entries(dir)) {
    // A link to a folder elsewhere is not followed: what it leads to is no project of this folder.
    if (!project.isDirectory()) continue;
    for (const f of entries(join(dir, project.name))) {
      if (!f.name.endsWith(".jsonl")) continue;
      const path = join(dir, project.name, f.name);
      const why = refusal(path, f, opts.uid);
      if (typeof why === "string") {
        out.refused.push({ path, why });
        continue;
      }
      if (out.files.length >= max) {
        beyond++;
        continue;
      }
      out.files.push({ path, sessionId: f.name.slice(0, -".jsonl".length), size: why.size, mtimeMs: why.mtimeMs });
    }
  }
  if (beyond > 0) out.cut = beyond;
  return out;
}

/** A folder's entries; none when it cannot be read (another account's project folder). */
function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Why the file is not read, or its size and time when it is. */
function refusal(path: string, f: Dirent, uid: number | undefined): string | { size: number; mtimeMs: number } {
  const sessionId = f.name.slice(0, -".jsonl".length);
  if (!isSafeSessionId(sessionId)) return "its name is not a session id";
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    return `cannot be read: ${(err as Error).message}`;
  }
  if (!st.isFile()) return `${kindOf(st)}, not a transcript`;
  if (uid !== undefined && st.uid !== uid) return `owned by another account (uid ${st.uid})`;
  return { size: st.size, mtimeMs: st.mtimeMs };
}
