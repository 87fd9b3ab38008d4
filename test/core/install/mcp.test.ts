import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyMcp, claudeUserFile, mcpAddArgs, planMcp, registeredServer, shellLine } from "../../../src/core/install/mcp";
import { tempDir } from "../../helpers";

const target = { node: "/usr/bin/node", server: "/home/me/.local/share/vault-memory/bridges/v-1/vault-memory-mcp.cjs", vault: "/home/me/My Vault" };

/** A Claude Code config folder holding `json` as its .claude.json. */
function claudeDir(json?: unknown): NodeJS.ProcessEnv {
  const dir = tempDir("vm-claude-");
  if (json !== undefined) writeFileSync(join(dir, ".claude.json"), typeof json === "string" ? json : JSON.stringify(json, null, 2));
  return { CLAUDE_CONFIG_DIR: dir, HOME: dir };
}

const ours = { type: "stdio", command: target.node, args: [target.server, "--vault", target.vault], env: {} };

describe("the MCP server's registration plan", () => {
  it("is never applied to the person's own ~/.claude.json by a test: each test file has its own", () => {
    expect(claudeUserFile().startsWith(join(tmpdir(), "vm-test-claude-"))).toBe(true);
  });

  it("adds with `claude mcp add --scope user`, the name before `--`", () => {
    expect(mcpAddArgs(target)).toEqual(["mcp", "add", "--scope", "user", "vault-memory", "--", "/usr/bin/node", target.server, "--vault", "/home/me/My Vault"]);
    const plan = planMcp("install", target, "/bin/claude", claudeDir({ numStartups: 2 }));
    expect(plan.action).toBe("add");
    expect(plan.lines).toEqual([`claude mcp add --scope user vault-memory -- /usr/bin/node ${target.server} --vault '/home/me/My Vault'`]);
  });

  it("does nothing when the same server is registered, and replaces another, saying what ran", () => {
    expect(planMcp("install", target, "/bin/claude", claudeDir({ mcpServers: { "vault-memory": ours } })).action).toBe("none");
    const other = { type: "stdio", command: "node", args: ["/old/vault-memory-mcp.cjs"], env: { VAULT_MEMORY_VAULT: "/old" } };
    const plan = planMcp("install", target, "/bin/claude", claudeDir({ mcpServers: { "vault-memory": other } }));
    expect(plan.action).toBe("replace");
    expect(plan.description).toContain("runs node /old/vault-memory-mcp.cjs; it would be replaced");
    expect(plan.lines[0]).toBe("claude mcp remove --scope user vault-memory");
  });

  it("on uninstall removes this vault's server only", () => {
    expect(planMcp("uninstall", target, "/bin/claude", claudeDir({ mcpServers: { "vault-memory": { ...ours, command: "/opt/node" } } })).action).toBe("remove");
    const another = planMcp(
      "uninstall",
      target,
      "/bin/claude",
      claudeDir({ mcpServers: { "vault-memory": { command: "node", args: ["/b/vault-memory-mcp.cjs", "--vault", "/other"] } } }),
    );
    expect(another.action).toBe("none");
    expect(another.description).toContain("not this vault's; it is left as it is");
    expect(planMcp("uninstall", target, "/bin/claude", claudeDir()).action).toBe("none");
  });

  it("reads Claude Code's file without writing it, and says when it cannot", () => {
    const env = claudeDir("{ not json");
    expect(registeredServer(env)).toEqual({ state: "unknown", why: `${join(env.CLAUDE_CONFIG_DIR!, ".claude.json")} is not valid JSON` });
    expect(planMcp("uninstall", target, "/bin/claude", env).description).toMatch(
      /^Cannot tell whether .* to remove it, run: claude mcp remove --scope user vault-memory$/,
    );
    expect(readFileSync(join(env.CLAUDE_CONFIG_DIR!, ".claude.json"), "utf8")).toBe("{ not json");
    expect(claudeUserFile({ HOME: "/home/me" })).toBe("/home/me/.claude.json");
  });

  it("quotes a pasted line for the shell", () => {
    expect(shellLine(["claude", "--", "/a b/it's", "$HOME", "x"], "linux")).toBe(`claude -- '/a b/it'\\''s' '$HOME' x`);
    expect(shellLine(["claude", "C:\\Program Files\\node.exe"], "win32")).toBe('claude "C:\\Program Files\\node.exe"');
  });
});

describe.runIf(process.platform !== "win32")("applying the plan", () => {
  it("prints the line to run when there is no claude, and exits as done for nothing else", async () => {
    const env = claudeDir({});
    const r = await applyMcp(planMcp("install", target, undefined, env), env);
    expect(r.status).toBe("manual");
    expect(r.message).toContain(`\n  claude mcp add --scope user vault-memory -- /usr/bin/node`);
  });

  it("reports a failing CLI with its message and the line to run by hand, and a replace says how to put the old one back", async () => {
    const env = claudeDir({ mcpServers: { "vault-memory": { command: "node", args: ["/old.cjs"] } } });
    const bin = join(tempDir(), "claude");
    // Removes fine, then refuses to add.
    writeFileSync(bin, `#!/bin/sh\nif [ "$2" = add ]; then echo "MCP server exploded" >&2; exit 1; fi\nexit 0\n`);
    chmodSync(bin, 0o755);
    const r = await applyMcp(planMcp("install", target, bin, env), env);
    expect(r.status).toBe("failed");
    expect(r.message).toContain("claude mcp add failed: MCP server exploded");
    expect(r.message).toContain(`claude mcp add-json --scope user vault-memory '{"command":"node","args":["/old.cjs"]}'`);
  });

  it("does not take the CLI's word for it: the file must show the server", async () => {
    const env = claudeDir({});
    const bin = join(tempDir(), "claude");
    writeFileSync(bin, "#!/bin/sh\nexit 0\n");
    chmodSync(bin, 0o755);
    const r = await applyMcp(planMcp("install", target, bin, env), env);
    expect(r).toEqual({
      status: "failed",
      message: `claude said it registered the MCP server vault-memory, but ${join(env.CLAUDE_CONFIG_DIR!, ".claude.json")} does not show it.`,
    });
  });
});
