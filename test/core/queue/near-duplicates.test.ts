import { describe, expect, it } from "vitest";
import { containment, NearDuplicateIndex } from "../../../src/core/queue/near-duplicates";

// Cards of some length, each of its own words, so that the index's sample of shingles is not tiny.
const card = (i: number): string =>
  Array.from({ length: 40 }, (_, j) => `word${i}x${j}`).join(" ") + `. Card ${i} ends here, with the note that ends every card of this vault.`;

describe("the near-duplicate index", () => {
  const index = new NearDuplicateIndex();
  for (let i = 0; i < 200; i++) index.add(`c${i}.md`, card(i));

  it("finds the card that holds a text, with the share it holds counted exactly", () => {
    const text = card(17).slice(0, 300);
    expect(index.find(text, 0.8)).toEqual({ path: "c17.md", containment: containment(text, card(17)) });
    expect(containment(text, card(17))).toBe(1);
  });

  it("finds nothing for a text no card holds enough of, though it shares a sentence with them all", () => {
    const half = card(17).slice(0, 150) + " " + card(18).slice(200, 350);
    expect(containment(half, card(17))).toBeLessThan(0.8);
    expect(index.find(half, 0.8)).toBeUndefined();
    expect(index.find("Card 3 ends here, with the note that ends every card of this vault.", 0.99)?.path).toBe("c3.md");
  });

  it("compares a card added again by its new text only", () => {
    const again = new NearDuplicateIndex();
    again.add("a.md", card(1));
    again.add("a.md", card(2));
    expect(again.find(card(1), 0.8)).toBeUndefined();
    expect(again.find(card(2), 0.8)).toEqual({ path: "a.md", containment: 1 });
  });

  it("counts Chinese text by its characters, and a text shorter than a shingle whole", () => {
    const zh = new NearDuplicateIndex();
    zh.add("zh.md", "数据库连接池在事务模式下运行，Prisma 需要在连接字符串中加上 pgbouncer=true 才能正常工作。");
    expect(zh.find("Prisma 需要在连接字符串中加上 pgbouncer=true", 0.9)?.path).toBe("zh.md");
    zh.add("short.md", "端口");
    expect(zh.find("端口")?.path).toBe("short.md");
    expect(containment("端口", "数据库")).toBe(0);
  });

  it("finds every piece of a card that the card holds word for word, however short", () => {
    const text = "Use pnpm, never npm: the lockfile is pnpm-lock.yaml. Node 20 is required for the build, and CI checks it.";
    const one = new NearDuplicateIndex();
    one.add("pnpm.md", text);
    for (const other of [card(1), card(2)]) one.add(`${other.length}.md`, other);
    for (let from = 0; from < text.length - 8; from += 3)
      for (const length of [8, 13, 19, 30, 60]) {
        const piece = text.slice(from, from + length);
        expect(one.find(piece, 0.95)?.path, piece).toBe("pnpm.md");
      }
  });
});
