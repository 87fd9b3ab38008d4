// Types of fetch-claude.mjs, for the tests that import it.
export const PIN: { package: string; version: string; integrity: string };
export function cachedClaude(home?: string): string;
export function integrityOf(file: string): Promise<string>;
export function checkTarball(file: string, expected?: string): Promise<void>;
export function runsAsPinned(bin: string): boolean;
