/** The whole-body checksum recorded in a snapshot header. */

import { fnv1aBytes } from "../io/hash";

// FNV-1a rather than SHA-256: this guards against torn and damaged files, not against an
// attacker, and loading node:crypto would cost every hook process milliseconds at start-up.
export function checksumOf(body: Uint8Array): string {
  return checksumLabel(fnv1aBytes(body));
}

/** How a body's FNV-1a hash is written in the header. */
export function checksumLabel(hash: number): string {
  return "fnv1a32:" + hash.toString(16).padStart(8, "0");
}
