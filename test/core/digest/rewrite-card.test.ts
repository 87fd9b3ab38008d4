/**
 * A card the digest or a session changes while its person edits it: never rewritten from a stale,
 * empty or partial read. The edit function runs between the read and the write, which is where a
 * person's save lands in a race; here it lands there every time.
 */

import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rewriteCard } from "../../../src/core/digest/apply";
import { AnswerError } from "../../../src/core/llm/answer";
import { tempDir } from "../../helpers";

const CARD = "---\nname: Busy\ntype: debugging\n---\n# Busy\n\nSet busy_timeout.\n";
const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function card(text = CARD): string {
  const d = tempDir("vm-rewrite-");
  made.push(d);
  writeFileSync(join(d, "busy.md"), text);
  return join(d, "busy.md");
}

describe("rewriteCard", () => {
  it("keeps a person's save that came between the read and the write, and adds to it", () => {
    const p = card();
    let saves = 0;
    rewriteCard(
      p,
      "busy.md",
      (text) => {
        // The person saves while the link is being made, twice.
        if (saves < 2) writeFileSync(p, `${readFileSync(p, "utf8")}Person's edit ${saves++}.\n`);
        return `${text}\n## Related\n- [[other]]\n`;
      },
      true,
    );
    const text = readFileSync(p, "utf8");
    expect(text).toContain("Person's edit 0.\nPerson's edit 1.\n");
    expect(text).toContain("## Related\n- [[other]]");
  });

  it("does not write a card that is empty, being saved in place", () => {
    const p = card("");
    expect(() => rewriteCard(p, "busy.md", (t) => `${t}\n## Related\n- [[other]]\n`, true)).toThrow(/busy\.md is empty now/);
    expect(readFileSync(p, "utf8")).toBe("");
  });

  it("does not write a card whose frontmatter is gone since it was read", () => {
    const p = card("Set busy_timeout.\n");
    expect(() => rewriteCard(p, "busy.md", (t) => `${t}\n## Related\n- [[other]]\n`, true)).toThrow(AnswerError);
    expect(readFileSync(p, "utf8")).toBe("Set busy_timeout.\n");
    // A note that never had frontmatter is linked as before.
    rewriteCard(p, "busy.md", (t) => `${t}\n## Related\n- [[other]]\n`, false);
    expect(readFileSync(p, "utf8")).toContain("[[other]]");
  });

  it("gives up with a reason when the card changes on every try", () => {
    const p = card();
    let n = 0;
    expect(() => rewriteCard(p, "busy.md", (t) => (writeFileSync(p, `${CARD}edit ${n++}\n`), `${t}x`), true)).toThrow(/kept changing/);
    expect(readFileSync(p, "utf8")).toBe(`${CARD}edit ${n - 1}\n`);
    // Eight tries, each from one read: what the last save left is not read, whatever it is.
    expect(n).toBe(8);
    n = 0;
    writeFileSync(p, CARD);
    expect(() => rewriteCard(p, "busy.md", (t) => (writeFileSync(p, ++n < 8 ? `${CARD}edit ${n}\n` : ""), `${t}x`), true)).toThrow(/kept changing/);
    expect(readFileSync(p, "utf8")).toBe("");
  });

  it("reads the card again after a save, and does not write one the save left empty", () => {
    const p = card();
    let n = 0;
    expect(() => rewriteCard(p, "busy.md", (t) => (n++ === 0 && writeFileSync(p, ""), `${t}x`), true)).toThrow(/busy\.md is empty now/);
    expect(n).toBe(1);
    expect(readFileSync(p, "utf8")).toBe("");
  });
});

describe("replaceIfUnchanged when a save lands between the comparison and the rename", () => {
  it("hands back what an editor saved by rename, which the rename replaced", async () => {
    const { replaceIfUnchanged } = await import("../../../src/core/io/atomic");
    const p = card();
    const theirs = `${CARD}Person's edit.\n`;
    const saved = replaceIfUnchanged(p, CARD, `${CARD}ours\n`, {
      afterCompare: () => {
        writeFileSync(`${p}.editor`, theirs);
        renameSync(`${p}.editor`, p);
      },
    });
    expect(saved).toBe(theirs);
    // The caller writes it back with its change; nothing is left beside the card.
    expect(readdirSync(dirname(p))).toEqual(["busy.md"]);
  });

  it("hands back what an editor wrote in place into the file compared", async () => {
    const { replaceIfUnchanged } = await import("../../../src/core/io/atomic");
    const p = card();
    const theirs = `${CARD}Saved in place.\n`;
    const saved = replaceIfUnchanged(p, CARD, `${CARD}ours\n`, { afterCompare: () => writeFileSync(p, theirs) });
    expect(saved).toBe(theirs);
  });

  it("hands back nothing when nothing came in between", async () => {
    const { replaceIfUnchanged } = await import("../../../src/core/io/atomic");
    const p = card();
    expect(replaceIfUnchanged(p, CARD, `${CARD}ours\n`)).toBeUndefined();
    expect(readFileSync(p, "utf8")).toBe(`${CARD}ours\n`);
  });
});

describe("replaceOrGiveBack, for a change that cannot be made again to a newer text", () => {
  it("puts back what an editor saved by rename as the file was replaced, and says the change was not made", async () => {
    const { replaceOrGiveBack, ChangedSince } = await import("../../../src/core/io/atomic");
    const p = card();
    const theirs = `${CARD}Person's edit.\n`;
    expect(() =>
      replaceOrGiveBack(p, CARD, `${CARD}ours\n`, {
        afterCompare: () => {
          writeFileSync(`${p}.editor`, theirs);
          renameSync(`${p}.editor`, p);
        },
      }),
    ).toThrow(ChangedSince);
    expect(readFileSync(p, "utf8")).toBe(theirs);
    expect(readdirSync(dirname(p))).toEqual(["busy.md"]);
  });

  it("puts back what an editor wrote in place into the file compared", async () => {
    const { replaceOrGiveBack, ChangedSince } = await import("../../../src/core/io/atomic");
    const p = card();
    const theirs = `${CARD}Saved in place.\n`;
    expect(() => replaceOrGiveBack(p, CARD, `${CARD}ours\n`, { afterCompare: () => writeFileSync(p, theirs) })).toThrow(ChangedSince);
    expect(readFileSync(p, "utf8")).toBe(theirs);
  });

  it("makes the change when nothing came in between", async () => {
    const { replaceOrGiveBack } = await import("../../../src/core/io/atomic");
    const p = card();
    replaceOrGiveBack(p, CARD, `${CARD}ours\n`);
    expect(readFileSync(p, "utf8")).toBe(`${CARD}ours\n`);
  });
});
