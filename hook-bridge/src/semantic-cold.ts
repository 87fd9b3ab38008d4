/**
 * The seam to semantic.ts: a plain re-export in source and tests; the build swaps it for a loader
 * of vault-memory-semantic.cjs through the code cache, on first use (see esbuild.config.mjs).
 */
export { askVector, closeCards, openCards, searchCards, trustedSemantic } from "./semantic";

/** Tells the code cache that this run used the semantic code all the way (in the build; nothing here). */
export function semanticUsed(): void {}
