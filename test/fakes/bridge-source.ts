/** The plugin's embedded bridge, as the build embeds it: the built files, read from hook-bridge/dist. */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { BRIDGE_FILES as NAMES, MCP_SERVER_FILE } from "../../src/core/install/hook-commands";
import { ROOT } from "../helpers";

export const BRIDGE_FILES: Record<string, string> = Object.fromEntries(
  NAMES.map((name) => [name, readFileSync(join(ROOT, "hook-bridge", "dist", name), "utf8")]),
);
export const MCP_SERVER_GZIP = gzipSync(readFileSync(join(ROOT, "hook-bridge", "dist", MCP_SERVER_FILE))).toString("base64");
