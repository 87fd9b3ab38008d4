/** What the secret rule finds in one note, apart from the rule so that a vault's notes can be scanned ahead, on another thread. */

import { findSecrets } from "../privacy/redact";

export interface SecretScan {
  /** The secret shapes the note holds (SECRET_PATTERNS ids); none for most notes. */
  kinds: string[];
  /** The first line (1-based) that holds one on its own; 0 when none does, or the note holds none. */
  line: number;
}

export function scanForSecrets(text: string): SecretScan {
  const kinds = findSecrets(text);
  if (kinds.length === 0) return { kinds, line: 0 };
  const line = text.split("\n").findIndex((l) => findSecrets(l).length > 0);
  return { kinds, line: line >= 0 ? line + 1 : 0 };
}
