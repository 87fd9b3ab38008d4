import { describe, expect, it } from "vitest";
import { extractCandidates } from "../../../src/core/queue/extract";
import type { Turn } from "../../../src/core/transcript/read-transcript";

const turns = (...texts: string[]): Turn[] => texts.map((text, i) => ({ role: i % 2 ? "assistant" : "user", text, prompt: Math.floor(i / 2) }));

describe("extractCandidates", () => {
  it.each([
    ["decision", "最后我们决定改用 launchd 来跑夜间任务。"],
    ["decision", "We decided to switch to pnpm for the monorepo."],
    ["decision", "We'll use SQLite in WAL mode for the queue."],
    ["decision", "放弃 cron，最终选了 launchd 的 plist 方案"],
    ["constraint", "你必须在 plist 里写死 PATH，不然找不到 node"],
    ["constraint", "Never run the digest while another instance holds the lock."],
    ["constraint", "生产环境禁止直接改数据库 schema"],
    ["todo", "待确认：Windows 上的排程器要不要同样处理"],
    ["todo", "TODO: add a retry when the quota error comes back"],
    ["todo", "下次部署前先检查 base 路径的设置"],
    ["fact", "Run `npm run build` before copying main.js into the vault."],
    ["fact", "The config lives in ~/Library/LaunchAgents/com.example.nightly.plist on macOS"],
    ["fact", "Upgrade esbuild to 0.28.2 to fix the warning."],
  ])("finds a %s in %j", (kind, text) => {
    expect(extractCandidates(turns(text))).toEqual([{ kind, text, turn: 0 }]);
  });

  it("keeps code blocks verbatim, with the turn they came from", () => {
    const code = "```sh\nlaunchctl load -w ~/Library/LaunchAgents/x.plist\n```";
    const c = extractCandidates(turns("hi there, nothing here", `Here is the fix:\n${code}\nThat is all.`));
    expect(c).toContainEqual({ kind: "code", text: code, turn: 1 });
  });

  it("skips fragments under 15 characters and plain chatter", () => {
    expect(extractCandidates(turns("must do", "OK, sounds good to me, thanks a lot"))).toEqual([]);
  });

  it("does not repeat the same candidate", () => {
    expect(extractCandidates(turns("We decided to use launchd.", "We decided to use launchd."))).toHaveLength(1);
  });
});
