import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { LinkResolver, linkTarget } from "../../../src/core/card/links";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { buildGraph } from "../../../src/core/lint/graph";

const PATHS = ["notes/deep/c.md", "reference/B.md", "a.md", "projects/x/readme.md", "projects/y/readme.md", "readme.md", "Zettel/2024 Plan.md"];

describe("linkTarget", () => {
  it.each([
    ["folder/name#heading|alias", "folder/name"],
    ["name.md", "name"],
    ["[[name|shown]]", "name"],
    ["![[embed.png]]", "embed.png"],
    ["Table view\\", "Table view"], // `[[Table view\|Table]]` inside a table
    ["#heading in the same note", ""],
  ])("%s → %s", (inner, target) => {
    expect(linkTarget(inner)).toBe(target);
  });
});

describe("LinkResolver", () => {
  const r = new LinkResolver(PATHS);
  it.each([
    ["deep/c", "", "notes/deep/c.md"],
    ["Reference/B", "", "reference/B.md"],
    ["reference/b.md", "", "reference/B.md"],
    ["/notes/deep/c", "", "notes/deep/c.md"],
    ["notes\\deep\\c", "", "notes/deep/c.md"],
    ["b", "", "reference/B.md"],
    ["readme", "projects/x/todo.md", "projects/x/readme.md"],
    ["readme", "projects/y/deeper/todo.md", "projects/y/readme.md"],
    ["readme", "elsewhere/todo.md", "readme.md"],
    ["x/readme", "", "projects/x/readme.md"],
    ["2024 plan#goals|plan", "", "Zettel/2024 Plan.md"],
    ["./deep/c", "notes/index.md", "notes/deep/c.md"], // relative to the linking note
    ["../B", "reference/sub/x.md", "reference/B.md"],
    ["../../a", "projects/x/todo.md", "a.md"],
    ["eep/c", "", undefined], // a path must end at a folder boundary
    ["missing", "", undefined],
  ])("[[%s]] from %j → %s", (target, from, path) => {
    expect(r.resolve(target, from)).toBe(path);
  });

  it("follows notes added and removed", () => {
    const live = new LinkResolver(["a/x.md"]);
    live.add("b/x.md");
    expect(live.resolve("x", "b/n.md")).toBe("b/x.md");
    live.remove("b/x.md");
    expect(live.resolve("x", "b/n.md")).toBe("a/x.md");
    live.remove("a/x.md");
    expect(live.resolve("x")).toBeUndefined();
  });
});

describe("recall's index and lint resolve the same links", () => {
  it("for the targets that once resolved in lint and gave nothing in the index", () => {
    const text: Record<string, string> = {
      "src.md": "---\nname: Source\n---\nSee [[deep/c]], [[Reference/B]], [[x/readme]] and [[b|the B note]].\n",
      ...Object.fromEntries(PATHS.map((p) => [p, `# ${p}\n`])),
    };
    const cards = Object.entries(text).map(([p, t]) => parseCard(p, t));
    const graph = buildGraph(cards);
    const index = new MemoryIndex();
    for (const c of cards) index.upsert(c);
    const src = [...index.docs()].find((d) => d.path === "src.md")!;
    const fromIndex = index.doc(src.id)!.links.map((id) => index.doc(id)!.path).sort();
    expect(fromIndex).toEqual([...graph.out.get("src.md")!].sort());
    expect(fromIndex).toEqual(["notes/deep/c.md", "projects/x/readme.md", "reference/B.md"]);
  });
});
