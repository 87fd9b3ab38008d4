/** The plugin's embedded bridge, as the build embeds it: the built files, read from hook-bridge/dist. */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BRIDGE_FILES as NAMES } from "../../src/core/install/hook-commands";
import { ROOT } from "../helpers";

export const BRIDGE_FILES: Record<string, string> = Object.fromEntries(NAMES.map((name) => [name, readFileSync(join(ROOT, "hook-bridge", "dist", name), "utf8")]));
