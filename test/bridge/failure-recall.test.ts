/**
 * The PostToolUseFailure hook: a command Claude ran failed, and the cards its error's words find
 * reach Claude as the hook's JSON context; a failure no card explains, or one the person stopped,
 * gets nothing.
 */

import { describe, expect, it } from "vitest";
import { FAILURE_HEADER, RECALL_HEADER } from "../../src/core/text/recall-header";
import { failureQuery, reportsResult } from "../../src/core/recall/failure";
import { SAMPLE_VAULT, copyVault, runBridge } from "../helpers";

const failed = (command: string, error: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    session_id: "f1",
    cwd: "/work/vault-memory",
    hook_event_name: "PostToolUseFailure",
    tool_name: "Bash",
    tool_input: { command },
    error,
    ...extra,
  });

function indexed(): string {
  const vault = copyVault(SAMPLE_VAULT);
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);
  return vault;
}

describe("recall when a command fails", () => {
  it("gives the card that explains the error, as the hook's JSON context", () => {
    const vault = indexed();
    const r = runBridge(
      ["recall", "--vault", vault],
      failed(
        "launchctl kickstart -k gui/501/com.me.nightly",
        "Exit code 127\n/Users/me/bin/nightly.sh: line 4: claude: command not found\nnightly digest failed under launchd",
      ),
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe("PostToolUseFailure");
    expect(out.hookSpecificOutput.additionalContext).toContain(FAILURE_HEADER);
    // Said of the failed command, not of a prompt.
    expect(out.hookSpecificOutput.additionalContext).not.toContain(RECALL_HEADER);
    expect(out.hookSpecificOutput.additionalContext).toContain("launchd-cron-path.md");
  });

  it.each([
    ["a grep with no match", "grep -n TODO src/app.ts", "Exit code 1", {}],
    ["a stopped command", "npm test", "Exit code 130\n^C", { is_interrupt: true }],
    ["an error no card explains", "cargo build", "Exit code 101\nerror[E0308]: mismatched types\n --> src/main.rs:4:18\nexpected `u32`, found `&str`"],
    // The diff's lines hold the launchd card's words; a difference found is no error to explain.
    [
      "a diff that found a difference",
      "diff nightly.plist nightly.plist.bak",
      "Exit code 1\n4c4\n< claude: command not found under launchd\n---\n> nightly digest failed under launchd",
    ],
    [
      "a formatter's check",
      "cd scripts && shfmt --check nightly.sh",
      "Exit code 1\nnightly.sh: claude: command not found under launchd, nightly digest failed",
    ],
  ] as [string, string, string, Record<string, unknown>][])("prints nothing for %s", (_, command, error, extra) => {
    const vault = indexed();
    const r = runBridge(["recall", "--vault", vault], failed(command, error, extra));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
  });
});

describe("reportsResult", () => {
  it.each([
    "diff a.yaml b.yaml",
    "grep -rn TODO src",
    "rg -n 'inplace=True' etl/",
    "test -f .env.local",
    "[ -d build ]",
    "ls dags/backfill.py",
    "cargo fmt --check",
    "cd infra && terraform fmt -check -recursive",
    "uv run ruff format --check etl/",
    "LC_ALL=C sudo /usr/bin/diff -u a b",
  ])("%s reports a result", (command) => {
    expect(reportsResult(command)).toBe(true);
  });

  it.each([
    "cargo build",
    "argocd app diff billing-api",
    "helm template charts/service | kubectl diff -f -",
    "cargo sqlx prepare --check",
    "pnpm lint",
    "vale src/content/docs",
    "git rebase origin/main",
    "",
  ])("%j fails as an error", (command) => {
    expect(reportsResult(command)).toBe(false);
  });
});

describe("failureQuery", () => {
  it("keeps the lines that read as the failure, without the progress around them or Claude Code's exit code line", () => {
    const noise = Array.from({ length: 100 }, (_, i) => `INFO step ${i} done`);
    const q = failureQuery(`Exit code 1\n${noise.join("\n")}\nTypeError: cannot read properties of undefined\n${noise.slice(0, 3).join("\n")}`);
    expect(q).toBe("TypeError: cannot read properties of undefined");
  });

  it("leaves out the log's time stamps, whose numbers would pass for the error's rare words", () => {
    const q = failureQuery(
      "Exit code 1\n[2026-07-22T07:20:04.006+0000] {taskinstance.py:2731} ERROR - Task failed with exception\n" +
        "17:42:09.113 [build] error: 403 Forbidden, run_id=run_2026-07-22T07:10:01.552+00:00, end_date=20260722T072004, at 2026-07-22 07:20",
    );
    expect(q).not.toMatch(/2026|07:|:04|0000|20260722|072004|17:42|42:09/);
    expect(q).toMatch(/ERROR - Task failed with exception/);
    // A number that is not part of a time stamp is the error's own: an HTTP status, a line number.
    expect(q).toMatch(/403 Forbidden/);
    expect(q).toMatch(/taskinstance\.py:2731/);
    // A date alone may be what the error is about: an API version, a release.
    expect(failureQuery("error: invalid API version 2023-10-16 for this account")).toBe("error: invalid API version 2023-10-16 for this account");
  });

  it("keeps a race detector's and a crash's own lines, which use none of an error message's words", () => {
    // Go's race detector, as `go test -race` prints it (addresses and goroutine numbers as it gives them).
    const race = failureQuery(
      [
        "Exit code 1",
        "==================",
        "WARNING: DATA RACE",
        "Write at 0x00c0000a4018 by goroutine 8:",
        "  example.com/ledger.(*Cache).Put()",
        "      /src/ledger/cache.go:41 +0x64",
        "Previous read at 0x00c0000a4018 by goroutine 7:",
        "  example.com/ledger.(*Cache).Get()",
        "      /src/ledger/cache.go:33 +0x3c",
        "==================",
        "    testing.go:1465: race detected during execution of test",
        "--- FAIL: TestCacheConcurrent (0.01s)",
        "FAIL",
        "FAIL\texample.com/ledger\t0.029s",
      ].join("\n"),
    );
    expect(race).toMatch(/^WARNING: DATA RACE$/m);
    expect(race).toMatch(/race detected during execution of test/);
    expect(race).not.toMatch(/cache\.go|0x00c0000a4018/);
    // ThreadSanitizer, and a crash the shell reports.
    expect(failureQuery("WARNING: ThreadSanitizer: data race (pid=4242)\n  Write of size 8 at 0x7b0400000010 by thread T1:")).toBe(
      "WARNING: ThreadSanitizer: data race (pid=4242)",
    );
    expect(failureQuery("Exit code 139\nloading model.bin\nrunning 3 batches\nbatch 1 ok\nbatch 2 ok\nSegmentation fault (core dumped)")).toBe(
      "Segmentation fault (core dumped)",
    );
  });

  it("keeps the last lines when none reads as an error", () => {
    expect(failureQuery("Exit code 1\nfirst\nsecond\nthird\nfourth")).toBe("second\nthird\nfourth");
  });
});
