/**
 * The release's version, which the MCP server reports. One number is shared by package.json,
 * manifest.json, the Claude Code plugin's plugin.json and CHANGELOG.md; test/release.test.ts
 * holds them all equal, so a bump that misses one fails.
 */
export const VERSION = "0.2.0";
