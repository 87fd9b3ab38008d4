/**
 * The seam to semantic.ts: a plain re-export in source and tests; the build swaps it for a loader
 * of vault-memory-semantic.cjs on first use (see esbuild.config.mjs).
 */
export { askVector, closeCards, openCards, searchCards } from "./semantic";
