/** The digest's settings and their defaults. */

export interface DigestSettings {
  /** HH:MM, local time. */
  time: string;
  /** The LLM command and its flags; the prompt goes to its stdin. */
  command: string[];
  /** An absolute path to the LLM binary, when it is not on the login shell's PATH. */
  binary: string;
  model: string;
  maxEntries: number;
  maxCalls: number;
  timeoutSec: number;
  /** A shell command the report is piped to (e.g. `mail -s "Vault Memory" me@example.com`); "" for none. */
  reportCommand: string;
}

export const DEFAULT_DIGEST: DigestSettings = {
  time: "03:00",
  command: ["claude", "-p", "--output-format", "json"],
  binary: "",
  model: "",
  maxEntries: 20,
  maxCalls: 30,
  timeoutSec: 300,
  reportCommand: "",
};
