/**
 * The seam between the hot path and everything else. In source and tests it is a plain
 * re-export; the production build swaps it for a loader that compiles the rest of the bridge
 * only when a command other than `recall` runs, so each prompt's hook parses a small file.
 */
export { recallWithoutVault, rememberReply, rememberSession, runCli } from "./cli";
