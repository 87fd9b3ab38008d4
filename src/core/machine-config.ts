/**
 * The settings that decide what runs and where data goes, and the per-user file they live in.
 *
 * A vault is shared: through git, Syncthing, a team folder, or a copy from another computer.
 * Whoever can write `<vault>/.vault-memory/config.json` could otherwise make every member's
 * nightly digest run a program of their choosing, or send every prompt to a server of theirs. So
 * the keys below are read only from this machine: the per-user file
 * (`$XDG_CONFIG_HOME/vault-memory/config.json`), a `--config` flag, the Claude Code plugin's
 * `config` option, or Obsidian's per-device storage. Never from a file inside the vault. Recall
 * tuning, lint rules and the like stay in the vault, where they serve everyone who shares it.
 */

import { mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "./io/atomic";
import { homeDir } from "./io/home";
import { FileRefused, readRegularFile } from "./io/read-file";
import { editJsonText } from "./io/json-text";

/** Per room, the keys that name a program, a command line, or a destination for the person's text. */
export const MACHINE_KEYS = {
  digest: ["command", "binary", "model", "reportCommand", "mail"],
  embed: ["enabled", "provider", "url", "model", "allowRemote", "queryPrefix", "passagePrefix", "inputType"],
  // Syncing sends the vault to a remote: never turned on, nor made more frequent, by a file the
  // remote's other writers share.
  sync: ["enabled", "intervalMinutes"],
} as const;

/**
 * The SMTP password's key in the per-user file (at its top level, or in a vault's entry). It is no
 * setting: it never enters a config, so it is never handed to a child process, mirrored into the
 * vault or shown; it is read only when a mail is sent (digest/mail.ts), and never from the vault.
 */
export const SMTP_PASSWORD_KEY = "smtpPassword";
/** The environment variable that may hold the SMTP password instead. */
export const SMTP_PASSWORD_ENV = "VAULT_MEMORY_SMTP_PASSWORD";

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** The per-user settings file: XDG's config folder on Linux and macOS, %APPDATA% on Windows. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/")) return join(env.XDG_CONFIG_HOME, "vault-memory", "config.json");
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "vault-memory", "config.json");
  return join(homeDir(env), ".config", "vault-memory", "config.json");
}

/** The per-user file a command uses: a `--config FILE` flag, the Claude Code plugin's `config` option, else userConfigPath. */
export function userFileOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  // An option left empty reaches the MCP server as "" or, from an older Claude Code, as the
  // placeholder itself: neither names a file.
  const option = env.CLAUDE_PLUGIN_OPTION_CONFIG;
  return flag && flag !== "-" ? flag : option && !option.startsWith("${") ? option : userConfigPath(env);
}

/** The largest settings file read; a real one is a few kilobytes. */
const MAX_CONFIG_BYTES = 1 << 20;

/**
 * A JSON settings file, read as a regular file only, without blocking (a FIFO planted at its path
 * would hang the prompt hook), at most 1 MB. Undefined when there is none; throws with a reason
 * a person can act on when it cannot be used.
 */
export function readSettingsFile(path: string, opts: { private?: boolean; notPrivate?: (why: string) => void } = {}): Raw | undefined {
  return readSettingsText(path, opts)?.raw;
}

/** readSettingsFile's settings, with the text they were read from, for a writer that edits it in place. */
function readSettingsText(path: string, opts: { private?: boolean; notPrivate?: (why: string) => void } = {}): { raw: Raw; text: string } | undefined {
  let bytes: Buffer;
  // `notPrivate`: told why the file is not the person's alone, rather than refusing to read it.
  const check = opts.private
    ? (st: { uid: number; mode: number }) => notPrivate(path, st)
    : opts.notPrivate
      ? (st: { uid: number; mode: number }) => (opts.notPrivate?.(notPrivate(path, st)), "")
      : undefined;
  try {
    bytes = readRegularFile(path, { maxBytes: MAX_CONFIG_BYTES, check });
  } catch (err) {
    if (err instanceof FileRefused && err.why === "missing") return undefined;
    throw err;
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") return { raw: {}, text };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) throw new Error(`${path} is not a JSON object`);
  return { raw, text };
}

/**
 * Why a file that may name a program to run cannot be trusted: another account can write it or
 * the folder it is in. POSIX only; Windows' ACLs are not modes.
 */
function notPrivate(path: string, st: { uid: number; mode: number }): string {
  if (process.platform === "win32" || typeof process.getuid !== "function") return "";
  const uid = process.getuid();
  if (st.uid !== uid && st.uid !== 0) return `${path} belongs to another user; settings that run programs are read only from your own file`;
  if (st.mode & 0o022) return `${path} can be written by other users (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 on it`;
  const dir = statSync(dirname(path));
  if (dir.uid !== uid && dir.uid !== 0) return `${dirname(path)} belongs to another user`;
  if (dir.mode & 0o022 && !(dir.mode & 0o1000)) return `${dirname(path)} can be written by other users; run chmod 700 on it`;
  return "";
}

/**
 * The key a vault is filed under in the per-user file: its real absolute path, so that the
 * terminal (`--vault ~/Notes`, a link) and Obsidian (the folder it opened) name it alike.
 */
export function vaultKey(vault: string): string {
  try {
    return realpathSync(vault);
  } catch {
    return resolve(vault);
  }
}

/**
 * The per-user file's settings for one vault: its top-level keys, overlaid with those under
 * `vaults[<the vault's absolute path>]`, so one person can point two vaults at two servers.
 */
export function userSettingsFor(user: Raw | undefined, vault: string): Raw {
  if (!user) return {};
  const { vaults, [SMTP_PASSWORD_KEY]: _password, ...global } = user;
  const own = isObject(vaults) ? vaults[vaultKey(vault)] : undefined;
  if (!isObject(own)) return global;
  const { [SMTP_PASSWORD_KEY]: _own, ...settings } = own;
  return overlay(global, settings);
}

/** The SMTP password the per-user file holds for this vault: its entry's, else the top level's. */
export function smtpPasswordIn(user: Raw | undefined, vault: string): string | undefined {
  const vaults = user?.vaults;
  const own = isObject(vaults) ? vaults[vaultKey(vault)] : undefined;
  const found = isObject(own) && own[SMTP_PASSWORD_KEY] !== undefined ? own[SMTP_PASSWORD_KEY] : user?.[SMTP_PASSWORD_KEY];
  return typeof found === "string" && found !== "" ? found : undefined;
}

/** `base` with `top`'s values on it, one level into each room. */
export function overlay(base: Raw, top: Raw): Raw {
  const out: Raw = { ...base };
  for (const [k, v] of Object.entries(top)) out[k] = isObject(v) && isObject(out[k]) ? { ...out[k], ...v } : v;
  return out;
}

/** `raw` without the machine keys: what a vault's own config.json may decide. */
export function withoutMachineKeys(raw: Raw): Raw {
  const { [SMTP_PASSWORD_KEY]: _password, ...out }: Raw = raw;
  for (const [room, keys] of Object.entries(MACHINE_KEYS)) {
    const r = out[room];
    if (!isObject(r)) continue;
    const kept: Raw = { ...r };
    for (const k of keys) delete kept[k];
    out[room] = kept;
  }
  return out;
}

/** Only the machine keys of `raw`, by room; rooms without any are left out. */
export function machineKeysOf(raw: Raw): Raw {
  const out: Raw = {};
  for (const [room, keys] of Object.entries(MACHINE_KEYS)) {
    const r = raw[room];
    if (!isObject(r)) continue;
    const kept: Raw = {};
    for (const k of keys) if (r[k] !== undefined) kept[k] = r[k];
    if (Object.keys(kept).length > 0) out[room] = kept;
  }
  return out;
}

/** Each machine key that `vaultRaw` sets and `effective` does not hold with the same value, as "room.key". */
export function ignoredVaultKeys(vaultRaw: Raw, effective: Raw): string[] {
  const found: string[] = [];
  const m = machineKeysOf(vaultRaw);
  for (const [room, keys] of Object.entries(m)) {
    const mine = isObject(effective[room]) ? effective[room] : {};
    for (const [k, v] of Object.entries(keys as Raw)) if (JSON.stringify(mine[k]) !== JSON.stringify(v)) found.push(`${room}.${k}`);
  }
  return found;
}

/**
 * Files `settings` (machine keys or any others) under this vault in the per-user file, keeping
 * everything else in it; the file is private to the person (600, its folder 700). With
 * `defaults`, the vault's machine keys are replaced: those equal to what the file's top level
 * (or else `defaults`) gives are left out, so they follow the top level.
 */
export function saveUserSettings(path: string, vault: string, settings: Raw, defaults?: Raw): void {
  let user: Raw = {};
  let text = "";
  try {
    ({ raw: user, text } = readSettingsText(path) ?? { raw: {}, text: "" });
  } catch (err) {
    // A file that cannot be read is never overwritten: it may hold what the person wrote.
    throw new Error(`${(err as Error).message}; fix it before saving settings`);
  }
  const vaults = isObject(user.vaults) ? { ...user.vaults } : {};
  const key = vaultKey(vault);
  const own = isObject(vaults[key]) ? vaults[key] : {};
  if (defaults) {
    const { vaults: _all, ...top } = user;
    const base = overlay(defaults, machineKeysOf(top));
    const changed: Raw = {};
    for (const [room, keys] of Object.entries(machineKeysOf(settings))) {
      for (const [k, v] of Object.entries(keys as Raw)) {
        const was = isObject(base[room]) ? base[room][k] : undefined;
        if (JSON.stringify(was) !== JSON.stringify(v)) {
          const r = isObject(changed[room]) ? changed[room] : (changed[room] = {});
          r[k] = v;
        }
      }
    }
    // The vault's SMTP password is the person's own, not a setting: it stays.
    const { [SMTP_PASSWORD_KEY]: password } = own;
    vaults[key] = overlay({ ...withoutMachineKeys(own), ...(password === undefined ? {} : { [SMTP_PASSWORD_KEY]: password }) }, changed);
  } else vaults[key] = overlay(own, settings);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let next: string;
  try {
    // Edited in place: the person may have written the file by hand, and only this vault's entry changes.
    next = editJsonText(text, { ...user, vaults });
  } catch (err) {
    throw new Error(`${path} ${(err as Error).message}; it was left untouched`);
  }
  writeFileAtomic(path, next, { mode: 0o600 });
}
