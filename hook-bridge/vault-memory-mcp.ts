/** The MCP server's own bundle: long-lived, so it may load what the hooks must not (the MCP SDK), and it stays out of their file. */

import { realpathSync, writeSync } from "node:fs";
import { runMcp } from "./src/mcp/server";

export { runMcp };

function isMain(): boolean {
  try {
    return typeof require !== "undefined" && require.main === module && realpathSync(process.argv[1] ?? "") === realpathSync(__filename);
  } catch {
    return false;
  }
}

// Run directly (as the plugin's .mcp.json does) it serves; loaded by `vault-memory mcp` it waits to be called.
if (isMain()) {
  runMcp(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      writeSync(2, `vault-memory mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
