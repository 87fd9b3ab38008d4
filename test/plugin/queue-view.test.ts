// @vitest-environment happy-dom
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listHandled, listPending } from "../../src/core/queue/queue-store";
import VaultMemoryPlugin from "../../src/plugin/main";
import { QUEUE_VIEW_TYPE, QueueReviewView } from "../../src/plugin/queue-view";
import { App, Notice } from "../fakes/obsidian";
import { jsonl, line } from "../fixtures/transcript";
import { SAMPLE_VAULT, copyVault, runBridge, tempDir } from "../helpers";
import { until } from "../wait";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";
import { claudeAvailable, claudeRig } from "../e2e/claude-driver";
import { startPlugin } from "./start-plugin";

const LONG = "Here is what changed and why, in enough words to be worth keeping as a card later on.";
// A sentence from the sample vault's launchd card: a candidate made of it is a near-duplicate.
const DUPLICATE = "腳本開頭用 `zsh -lc 'command -v claude'` 從登入 shell 解析出絕對路徑，再用絕對路徑呼叫。";

let vault: string;
let app: App;
let plugin: VaultMemoryPlugin;
let view: QueueReviewView;

/** Queues a session through the real Stop hook command. */
/**
 * Queues `lines` as a session of `daysAgo` days before the run, a second apart: the sidebar says how
 * long ago, and fixed dates drift from "2 days ago" to "last week" as the calendar moves on.
 */
function queueSession(session: string, lines: Record<string, unknown>[], daysAgo: number, cwd = "/work/blog"): void {
  const t = join(tempDir(), `${session}.jsonl`);
  const start = Date.now() - daysAgo * 86_400_000;
  writeFileSync(t, jsonl(lines.map((l, i) => ({ ...l, timestamp: new Date(start + i * 1000).toISOString() }))));
  const r = runBridge(["queue", "--vault", vault], JSON.stringify({ session_id: session, transcript_path: t, cwd, stop_hook_active: false }));
  expect(r.status).toBe(0);
}

async function openView(): Promise<QueueReviewView> {
  plugin = await startPlugin(app);
  await plugin.openQueue();
  const v = app.workspace.getLeavesOfType(QUEUE_VIEW_TYPE)[0]?.view;
  if (!(v instanceof QueueReviewView)) throw new Error("no queue view");
  return v;
}

const items = () => [...view.contentEl.querySelectorAll<HTMLElement>(".vault-memory-queue-item")];
const candidates = () => [...view.contentEl.querySelectorAll<HTMLElement>(".vault-memory-candidate")];
const button = (text: string) => [...view.contentEl.querySelectorAll("button")].find((b) => b.textContent === text)!;
/** A core-style icon button, found by its label as a screen reader would. */
const icon = (label: string) => view.contentEl.querySelector<HTMLElement>(`.clickable-icon[aria-label="${label}"]`)!;
const tick = (match: string) => {
  const li = candidates().find((c) => c.textContent?.includes(match));
  const box = li!.querySelector("input")!;
  box.checked = true;
  box.dispatchEvent(new Event("change"));
};

/** The newer conversation's lines, which a test later continues. */
const newer = (): Record<string, unknown>[] => [
  line.prompt("the nightly launchd job cannot find claude again"),
  line.reply(`${LONG} We decided to resolve the absolute path from the login shell.\n${DUPLICATE}`),
  line.prompt("ok and on windows?"),
  line.reply(`${LONG} Run \`npm run build\` before each deploy to GitHub Pages.\nNever call timeout.exe from the nightly script.`),
];

beforeEach(async () => {
  vault = copyVault(SAMPLE_VAULT, "Queue vault");
  queueSession(
    "older",
    [
      line.prompt("vite 部署后 base 路径要怎么改"),
      line.reply(`${LONG} 我们决定把 base 改成 / 并把 CNAME 放进 public/。`),
      line.prompt("还有 CNAME 的问题"),
      line.reply(`${LONG} Run \`npm run build\` before each deploy to GitHub Pages.`),
    ],
    3,
  );
  queueSession("newer", newer(), 2);
  app = new App(vault);
  view = await openView();
});
afterEach(() => plugin?.unload());

describe("queue review sidebar", () => {
  it("lists waiting conversations newest first, with project, date, prompts, first prompt and candidate counts", () => {
    expect(items().map((i) => i.querySelector(".vault-memory-queue-first")?.textContent)).toEqual([
      "the nightly launchd job cannot find claude again",
      "vite 部署后 base 路径要怎么改",
    ]);
    const meta = items()[0].textContent ?? "";
    expect(meta).toMatch(/blog · (\d+ \w+ ago|yesterday|just now) · 2 prompts/);
    // The exact time is on hover.
    expect(items()[0].querySelector("time")?.getAttribute("title")).toMatch(/\d{4}, \d{2}:\d{2}$/);
    expect(meta).toMatch(/decision 1/);
    expect(view.contentEl.textContent).toContain("1 candidate appears in more than one conversation; it is shown once.");
  });

  it("gives the digest button back, and says why, when a digest of one conversation fails", async () => {
    (view as unknown as { host: { digestOne: (id: string) => Promise<unknown> } }).host.digestOne = () =>
      Promise.reject(new Error("the LLM command is missing"));
    items()[0].click();
    const shown = Notice.shown.length;
    button("Digest this one now").click();
    await until(() => Notice.shown.length > shown);
    expect(Notice.shown.at(-1)?.message).toBe("Vault Memory: the digest of this conversation failed: the LLM command is missing");
    expect(button("Digest this one now").disabled).toBe(false);
    expect(listPending(vault)).toHaveLength(2);
  });

  it("shows the count in the status bar", () => {
    plugin.updateStatusBar();
    expect((plugin as unknown as { statusBar: HTMLElement }).statusBar.textContent).toBe("2 to review");
  });

  it("opens an entry from the keyboard and shows its candidates, duplicates and conversation", () => {
    items()[0].dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(candidates().length).toBeGreaterThan(2);
    expect(view.contentEl.querySelector(".vault-memory-conversation pre")?.textContent).toContain("## User (turn 0)");
    const dup = candidates().find((c) => c.textContent?.includes("zsh -lc"));
    expect(dup?.querySelector(".vault-memory-duplicate")?.textContent).toMatch(/Already in debugging\/launchd-cron-path\.md/);
    expect(candidates().find((c) => c.textContent?.includes("npm run build"))?.textContent).toContain("Also in 1 other conversation");
  });

  it("makes a new card from ticked candidates, in the schema, and moves the entry to handled", async () => {
    items()[0].click();
    tick("We decided to resolve");
    const inputs = view.contentEl.querySelectorAll<HTMLInputElement>(".vault-memory-section input[type=text]");
    inputs[0].value = "Claude path under launchd";
    inputs[1].value = "Resolve claude's absolute path from the login shell";
    view.contentEl.querySelector<HTMLSelectElement>(".vault-memory-section select")!.value = "debugging";
    button("Create card").click();
    await until(() => listPending(vault).length === 1);
    const text = readFileSync(join(vault, "debugging/claude-path-under-launchd.md"), "utf8");
    expect(text).toMatch(
      /^---\nname: Claude path under launchd\ndescription: Resolve claude's absolute path from the login shell\ntype: debugging\ntags: \[[^\]]*\]\nproject: blog\nsource: session newer\n/,
    );
    expect(text).toContain("**decision:** We decided to resolve the absolute path from the login shell.");
    // The sample vault's cards close with `## Related` more often than `## 相關` (8 to 7): the new card follows them.
    expect(text).toMatch(/\n## Related\n- \[\[/);
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["older"]);
    expect(listHandled(vault)[0]).toMatchObject({ sessionId: "newer", outcome: { action: "created", detail: "debugging/claude-path-under-launchd.md" } });
  });

  it("links each related card back to the new card, as the digest does", async () => {
    items()[0].click();
    tick("We decided to resolve");
    view.contentEl.querySelectorAll<HTMLInputElement>(".vault-memory-section input[type=text]")[0].value = "Claude path under launchd";
    view.contentEl.querySelector<HTMLSelectElement>(".vault-memory-section select")!.value = "debugging";
    button("Create card").click();
    await until(() => listPending(vault).length === 1);
    const text = readFileSync(join(vault, "debugging/claude-path-under-launchd.md"), "utf8");
    const related = [...text.slice(text.search(/\n## (?:Related|相關)\n/)).matchAll(/^- \[\[([^\]]+)\]\]$/gm)].map((m) => m[1]);
    expect(related).toContain("launchd-cron-path");
    for (const name of related) {
      const file = app.vault.getMarkdownFiles().find((f) => f.basename === name || f.path === `${name}.md`)!;
      expect(readFileSync(join(vault, file.path), "utf8"), file.path).toContain("[[claude-path-under-launchd]]");
    }
  });

  it("warns before making a card from a near-duplicate candidate", () => {
    items()[0].click();
    tick("zsh -lc");
    button("Create card").click();
    expect(view.contentEl.textContent).toContain("A ticked candidate is already in debugging/launchd-cron-path.md");
    expect(button("Create anyway")).toBeDefined();
  });

  it("appends a dated section to a suggested card without rewriting it", async () => {
    items()[1].click();
    tick("决定把 base");
    const before = readFileSync(join(vault, "reference/vite-custom-domain-base.md"), "utf8");
    const row = [...view.contentEl.querySelectorAll(".vault-memory-suggestion")].find((r) => r.textContent?.includes("vite-custom-domain-base.md"));
    expect(row).toBeDefined();
    row!.querySelector("button")!.click();
    await until(() => readFileSync(join(vault, "reference/vite-custom-domain-base.md"), "utf8") !== before);
    const after = readFileSync(join(vault, "reference/vite-custom-domain-base.md"), "utf8");
    const related = before.indexOf("## 相關");
    expect(after.startsWith(before.slice(0, related).trimEnd())).toBe(true);
    expect(after).toMatch(/## \d{4}-\d{2}-\d{2}\n\n- \*\*decision:\*\* .*决定把 base[\s\S]*_From session older\._\n\n## 相關\n- \[\[blog-site\]\]/);
    expect(listHandled(vault)[0].outcome).toEqual({ action: "extended", detail: "reference/vite-custom-domain-base.md" });
  });

  it("reads cards through Obsidian in the background, and follows new and deleted cards", async () => {
    const suggested = () => [...view.contentEl.querySelectorAll(".vault-memory-suggestion .internal-link")].map((s) => s.textContent);
    const reopen = () => {
      icon("Back to the queue").click();
      items()[1].click();
    };
    items()[1].click();
    expect(suggested()).toContain("reference/vite-custom-domain-base.md");
    await app.vault.create(
      "reference/vite-cname-pages.md",
      "---\nname: vite CNAME on Pages\ndescription: vite base 路径 and CNAME\n---\nvite 部署 base 路径 CNAME public GitHub Pages 决定",
    );
    await app.vault.delete(app.vault.getFileByPath("reference/vite-custom-domain-base.md")!);
    // Edits are gathered for a second, then the cards are read again.
    await until(() => {
      reopen();
      return suggested().includes("reference/vite-cname-pages.md") && !suggested().includes("reference/vite-custom-domain-base.md");
    });
  });

  it("skips with a reason, and restores", () => {
    items()[1].click();
    view.contentEl.querySelector<HTMLInputElement>("input[placeholder='Reason (optional)']")!.value = "already known";
    button("Skip this conversation").click();
    expect(listHandled(vault)[0]).toMatchObject({ sessionId: "older", outcome: { action: "skipped", detail: "already known" } });
    expect(items()).toHaveLength(1);
    view.contentEl.querySelector<HTMLElement>(".vault-memory-handled > .tree-item-self")!.click();
    icon("Restore to the queue").click();
    expect(
      listPending(vault)
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(["newer", "older"]);
    expect(items()).toHaveLength(2);
  });

  it("follows a queue entry that changes on disk while it is open", async () => {
    items()[0].click();
    tick("We decided to resolve");
    const description = () => view.contentEl.querySelector<HTMLInputElement>("input[placeholder^='Description']")!;
    description().value = "Resolve the absolute path";
    description().dispatchEvent(new Event("input"));
    const count = candidates().length;
    queueSession("newer", [...newer(), line.prompt("and what about TODO items"), line.reply(`${LONG} TODO: check the Task Scheduler PATH next time.`)], 2);
    view.checkForChanges();
    expect(view.contentEl.querySelector(".vault-memory-banner")?.textContent).toContain("grew since you opened it");
    expect(candidates().length).toBeGreaterThan(count);
    expect(candidates().some((c) => c.textContent?.includes("Task Scheduler PATH"))).toBe(true);
    expect(
      candidates()
        .find((c) => c.textContent?.includes("We decided to resolve"))
        ?.querySelector("input")?.checked,
    ).toBe(true);
    // What was typed survives the redraw.
    expect(description().value).toBe("Resolve the absolute path");
  });

  it("labels the new card's fields, and opens a suggested card in a new tab with Ctrl/Cmd", async () => {
    items()[1].click();
    const names = [...view.contentEl.querySelectorAll(".vault-memory-section .setting-item-name")].map((n) => n.textContent);
    expect(names).toEqual(["Type", "Name", "Description", "Tags", "Reason"]);
    const link = view.contentEl.querySelector<HTMLElement>(".vault-memory-suggestion .internal-link")!;
    link.dispatchEvent(new MouseEvent("click", { metaKey: true, bubbles: true }));
    await until(() => app.workspace.leaves.some((l) => l.opened?.path === link.textContent));
    expect(app.workspace.leaves.find((l) => l.opened?.path === link.textContent)?.kind).toBe("tab");
    const hovers: unknown[] = [];
    app.workspace.on("hover-link", (info: unknown) => void hovers.push(info));
    link.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    expect(hovers).toEqual([expect.objectContaining({ source: QUEUE_VIEW_TYPE, linktext: link.textContent })]);
  });

  it.skipIf(!canScreenshot)("reads well in light and dark, Chinese included: the list and an open entry", () => {
    const list = renderView("queue-list", `<div style="width:380px">${shownHtml(view.containerEl)}</div>`, "420,700");
    expect(problems(list)).toEqual(NO_PROBLEMS);
    // The Chinese first prompt is drawn with glyphs (a missing font draws nothing measurable or boxes of one width).
    expect(list.check.light.cjkWidths.length).toBeGreaterThan(0);
    expect(Math.min(...list.check.light.cjkWidths)).toBeGreaterThan(20);
    items()[0].click();
    const entry = renderView("queue-entry", `<div style="width:380px">${shownHtml(view.containerEl)}</div>`, "420,1600");
    expect(problems(entry)).toEqual(NO_PROBLEMS);
  });
});

describe.skipIf(!claudeAvailable)("with a session queued by the real Claude Code CLI", () => {
  it("lists it and opens it", async () => {
    const rig = await claudeRig(vault, ["queue"]);
    try {
      const first = await rig.run(["-p", "we decided to pin esbuild to 0.28.2", "--output-format", "json"]);
      const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
      await rig.run(["-p", "--resume", id, "TODO: bump it again next month", "--output-format", "json"]);
    } finally {
      await rig.close();
    }
    view.checkForChanges();
    const item = items().find((i) => i.textContent?.includes("we decided to pin esbuild"));
    expect(item?.textContent).toMatch(/vault-memory · (\d+ \w+ ago|yesterday|just now) · 2 prompts/);
    item!.click();
    expect(candidates().map((c) => c.textContent)).toEqual(expect.arrayContaining([expect.stringContaining("decided to pin esbuild")]));
  });
});

describe("an empty queue", () => {
  it("says how conversations arrive, and links to Check connection", async () => {
    vault = copyVault(SAMPLE_VAULT, "Empty queue vault");
    app = new App(vault);
    view = await openView();
    const empty = view.contentEl.querySelector<HTMLElement>(".pane-empty")!;
    expect(empty.textContent).toMatch(/^Nothing waits in the queue\./);
    expect(empty.textContent).toMatch(
      /when it ends after at least 2 prompts and [\d,]+ characters of replies, or at once when you tell Claude "remember this"/,
    );
    const checks: unknown[] = [];
    plugin.checkConnection = () => {
      checks.push(1);
      return { ok: false, ms: 0, output: "", error: "test" };
    };
    empty.querySelector<HTMLElement>("a.vault-memory-check-connection")!.click();
    expect(checks).toHaveLength(1);
  });
});
