/** What sync's tests on two computers share: a card, writing and reading a vault's file, a sync as a test runs it. */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { syncVault } from "../../../src/core/sync/sync";
import type { Computer } from "../../git-remote";

export const card = (name: string, body: string): string => `---\nname: ${name}\ndescription: ${name} in a line\ntype: reference\ntags: [x]\n---\n${body}\n`;

export function put(c: Computer, path: string, text: string | Uint8Array): void {
  mkdirSync(dirname(join(c.vault, path)), { recursive: true });
  writeFileSync(join(c.vault, path), text);
}

export const read = (c: Computer, path: string): string => readFileSync(join(c.vault, path), "utf8");

/** A sync on a fixed day, so that conflict copies have names a test can know. */
export const sync = (c: Computer) => syncVault({ vault: c.vault, env: c.env, machine: "test", now: new Date("2026-12-07T12:00:00Z") });
