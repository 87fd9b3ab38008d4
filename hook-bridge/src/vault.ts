/** Resolves the vault a command works on and reports usage mistakes clearly. */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { stringFlag, type Args } from "./args";

export class UsageError extends Error {}

export function vaultFlag(args: Args): string {
  const v = stringFlag(args, "vault") ?? process.env.VAULT_MEMORY_VAULT;
  if (!v) throw new UsageError("--vault DIR is required (or set VAULT_MEMORY_VAULT)");
  const abs = resolve(v);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) throw new UsageError(`vault folder not found: ${abs}`);
  return abs;
}
