/** Claude Code session ids name Vault Memory's files, so anything that is not a plain id is refused everywhere. */

export function isSafeSessionId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(id);
}
