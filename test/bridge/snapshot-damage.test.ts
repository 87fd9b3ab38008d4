import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { copyVault, runBridge, SAMPLE_VAULT } from "../helpers";

const CASES: [prompt: string, card: string][] = [
  ["为什么排程跑不起来", "debugging/launchd-cron-path.md"],
  ["vite 部署到自訂網域 base 路徑", "reference/vite-custom-domain-base.md"],
  ["commit message style", "feedback/commit-messages.md"],
];

let session = 0;
const recallOf = (vault: string, prompt: string): string =>
  runBridge(["recall", "--vault", vault], JSON.stringify({ prompt, session_id: `damage-${process.pid}-${++session}`, cwd: "" })).stdout;

describe("recall on a damaged snapshot", () => {
  it("has the cards these cases name", () => {
    const vault = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", vault]);
    for (const [prompt, card] of CASES) expect(recallOf(vault, prompt)).toContain(card);
  });

  it.each(CASES)("never prints a path with a flipped byte (%s), stays silent, and remind rebuilds", (prompt, card) => {
    const vault = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", vault]);
    const path = vaultFiles.snapshot(vault);
    const bytes = readFileSync(path);
    // Flip one byte inside the card's path where the doc chunks hold it (after the header and table).
    const at = bytes.indexOf(Buffer.from(JSON.stringify(card)), bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1));
    expect(at).toBeGreaterThan(0);
    for (const offset of [3, card.indexOf("/") + 2, card.length - 2]) {
      const copy = Buffer.from(bytes);
      copy[at + offset] ^= 0x01;
      writeFileSync(path, copy);
      const damaged = String.fromCharCode(card.charCodeAt(offset - 1) ^ 0x01);
      const out = recallOf(vault, prompt);
      expect(out).toBe("");
      expect(out).not.toContain(card.slice(0, offset - 1) + damaged);
      expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/does not match its checksum/);
    }
    // Nothing for the person; the brief for Claude, from the rebuilt snapshot.
    expect(runBridge(["remind", "--vault", vault], "{}")).toMatchObject({ status: 0, stdout: expect.not.stringContaining("systemMessage"), stderr: "" });
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/rebuilt the recall snapshot \(corrupt\)/);
    expect(recallOf(vault, prompt)).toContain(card);
  });

  it.each([
    ["the card limit", (h: string) => h.replace('"maxCards":5', '"maxCards":1')],
    ["the minimum score", (h: string) => h.replace('"minScore":15', '"minScore":95')],
    ["the card count", (h: string) => h.replace(/"cards":(\d+)/, (_, n: string) => `"cards":${Number(n) - 1}`)],
  ])("stays silent when one byte of the header changes %s, and remind rebuilds", (_, edit) => {
    const vault = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", vault]);
    const path = vaultFiles.snapshot(vault);
    const text = readFileSync(path, "latin1");
    const nl = text.indexOf("\n");
    const changed = edit(text.slice(0, nl));
    expect(changed).not.toBe(text.slice(0, nl));
    writeFileSync(path, Buffer.from(changed + text.slice(nl), "latin1"));
    expect(recallOf(vault, CASES[0][0])).toBe("");
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/header does not match its checksum/);
    runBridge(["remind", "--vault", vault], "{}");
    expect(recallOf(vault, CASES[0][0])).toContain(CASES[0][1]);
  });
});
