/**
 * The hook bridge's files, embedded in main.js at build time: people who install from
 * Obsidian's community directory get only main.js, manifest.json and styles.css, and the plugin
 * writes the bridge out from here. Empty in source; esbuild.config.mjs fills it in, by file name
 * in the order they must be written (the entry last).
 */
export const BRIDGE_FILES: Record<string, string> = {};
/** The MCP server's bundle, gzipped and in base64; Connect Claude Code writes it beside the bridge. */
export const MCP_SERVER_GZIP = "";
