/** Parses a hook's JSON payload from stdin into plain fields, or says it is not one. */

import { readStdinSync } from "./stdin";

export type HookInput = Record<string, unknown>;

export function readHookInput(): HookInput | undefined {
  return parseHookInput(readStdinSync());
}

/** A JSON object, or undefined for anything else (not JSON, an array, a string, null). */
export function parseHookInput(text: string): HookInput | undefined {
  try {
    const p = JSON.parse(text) as unknown;
    return p && typeof p === "object" && !Array.isArray(p) ? (p as HookInput) : undefined;
  } catch {
    return undefined;
  }
}

export function str(input: HookInput, key: string): string {
  const v = input[key];
  return typeof v === "string" ? v : "";
}
