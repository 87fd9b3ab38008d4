/**
 * Each test file's own Claude Code config folder (CLAUDE_CONFIG_DIR): a claude that install or
 * Connect finds on a developer's PATH registers the MCP server there, never in their own
 * ~/.claude.json, and test files running side by side never register into the same file. Tests
 * of the registration itself run the CLI with a HOME of their own.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.CLAUDE_CONFIG_DIR = mkdtempSync(join(tmpdir(), "vm-test-claude-"));
