import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { LinkResolver, linkTarget } from "../../../src/core/card/links";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { buildGraph } from "../../../src/core/lint/graph";
import { unlinkUnresolved } from "../../../src/core/card/markdown";

const PATHS = ["notes/deep/c.md", "reference/B.md", "a.md", "projects/x/readme.md", "projects/y/readme.md", "readme.md", "Zettel/2024 Plan.md"];

describe("linkTarget", () => {
  it.each([
    ["folder/name#heading|alias", "folder/name"],
    ["name.md", "name"],
    ["[[name|shown]]", "name"],
    ["![[embed.png]]", "embed.png"],
    ["Table view\\", "Table view"], // `[[Table view\|Table]]` inside a table
    ["#heading in the same note", ""],
    ["  spaced name.MD  ", "spaced name"],
    ["name .md", "name"],
    ["twice.md.md", "twice.md"],
    ["folder/name.md#h", "folder/name"],
    ["back\\slash\\", "back\\slash"],
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

  // Many notes of one name, as in a vault with a README per folder or a help page per language.
  const MANY = ["en/Links.md", "de/Links.md", "en/sub/Links.md", "fr/docs/links.md", "Links.md", "en/Other.md", "de/sub/deep/Links.md", "EN/sub/Links.md"];
  const many = new LinkResolver(MANY);
  it.each([
    ["links", "en/a.md", "en/Links.md"], // the linking note's own folder
    ["links", "en/sub/a.md", "EN/sub/Links.md"], // deeper shared folders win; of two spelt alike in any case, the first in sort order
    ["Links", "de/sub/x/a.md", "de/sub/deep/Links.md"], // it shares de/sub, de/Links.md only de
    ["links", "de/sub/deep/a.md", "de/sub/deep/Links.md"],
    ["links", "it/a.md", "Links.md"], // nothing shared: the shortest path
    ["links", "", "Links.md"],
    ["sub/links", "", "EN/sub/Links.md"], // a path's ending: the shortest, then the first in sort order
    ["en/sub/links", "", "EN/sub/Links.md"], // a whole path, in any case: the first in sort order
    ["EN/SUB/LINKS", "de/a.md", "EN/sub/Links.md"],
    ["docs/Links", "en/a.md", "fr/docs/links.md"],
    ["deep/links", "", "de/sub/deep/Links.md"],
    ["ub/links", "", undefined],
    ["../links", "en/sub/a.md", "en/Links.md"], // relative: en/links, a whole path
    ["./links", "en/sub/a.md", "EN/sub/Links.md"], // en/sub/links: two notes have that path in some case
    ["../../../links", "en/sub/a.md", "EN/sub/Links.md"], // climbing past the root leaves a bare name, resolved as one
    ["./sub/links", "de/sub/a.md", undefined], // de/sub/sub/links: no such note, though others end in sub/links
    ["./deep/links", "de/sub/a.md", "de/sub/deep/Links.md"],
    ["links.md", "fr/docs/x.md", "fr/docs/links.md"],
  ])("among many of one name, [[%s]] from %j → %s", (target, from, path) => {
    expect(many.resolve(target, from)).toBe(path);
  });

  it("prefers the note whose whole path a target is over a shorter one it also ends", () => {
    const r2 = new LinkResolver(["b/a/n.md", "a/n.md", "x/b/a/n.md"]);
    expect(r2.resolve("a/n")).toBe("a/n.md");
    expect(r2.resolve("b/a/n")).toBe("b/a/n.md");
    expect(new LinkResolver(["zz/a/n.md", "y/a/n.md"]).resolve("a/n")).toBe("y/a/n.md");
  });

  it("resolves the links of one note alike through from()", () => {
    const fromEn = many.from("en/sub/a.md");
    for (const t of ["links", "../links", "sub/links", "missing"]) expect(fromEn(t)).toBe(many.resolve(t, "en/sub/a.md"));
  });

  it("resolves as a scan of every note would, as notes come and go", () => {
    // The rule written plainly, over all notes, as resolving once was: the resolver must agree
    // with it whatever it keeps to answer faster.
    const keyOf = (p: string): string => p.replace(/\\/g, "/").replace(/^\/+/, "").replace(/\.md$/i, "").toLowerCase();
    const folders = (k: string): string[] => k.split("/").slice(0, -1);
    const plain = (paths: Set<string>, target: string, from: string): string | undefined => {
      let t = keyOf(linkTarget(target));
      if (t.startsWith("./") || t.startsWith("../")) {
        const parts = folders(keyOf(from));
        for (const part of t.split("/")) {
          if (part === "..") parts.pop();
          else if (part !== "." && part !== "") parts.push(part);
        }
        t = parts.join("/");
      }
      if (t === "") return undefined;
      const name = t.slice(t.lastIndexOf("/") + 1);
      const hits = [...paths].sort().filter((p) => keyOf(p).slice(keyOf(p).lastIndexOf("/") + 1) === name);
      if (hits.length === 0) return undefined;
      if (t.includes("/")) return hits.find((p) => keyOf(p) === t) ?? hits.filter((p) => keyOf(p).endsWith("/" + t)).sort((a, b) => a.length - b.length)[0];
      const shared = (p: string): number => {
        const a = folders(keyOf(from));
        const b = folders(keyOf(p));
        let n = 0;
        while (n < a.length && n < b.length && a[n] === b[n]) n++;
        return n;
      };
      return hits.reduce((best, p) => (shared(p) > shared(best) || (shared(p) === shared(best) && p.length < best.length) ? p : best));
    };
    let seed = 11;
    const pick = <T>(xs: readonly T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length];
    const dirs = ["", "a/", "A/", "b/", "a/b/", "a/B/c/", "b/a/", "x/a/b/"];
    const names = ["n", "N", "m", "readme", "ReadMe"];
    const paths = new Set<string>();
    const live = new LinkResolver();
    for (let step = 0; step < 400; step++) {
      const path = `${pick(dirs)}${pick(names)}.md`;
      if (paths.has(path) && pick([true, false])) {
        paths.delete(path);
        live.remove(path);
      } else {
        paths.add(path);
        live.add(path);
      }
      for (let q = 0; q < 5; q++) {
        const name = pick(names);
        const target = pick([
          name,
          `${pick(dirs)}${name}`,
          `../${name}`,
          `./${pick(dirs)}${name}`,
          `../../${pick(dirs)}${name}`,
          `${name.toUpperCase()}.md`,
          "nothing",
        ]);
        const from = `${pick(dirs)}from.md`;
        expect(live.resolve(target, from), `[[${target}]] from ${from} in ${[...paths].join(" ")}`).toBe(plain(paths, target, from));
      }
    }
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
    const fromIndex = index
      .doc(src.id)!
      .links.map((id) => index.doc(id)!.path)
      .sort();
    expect(fromIndex).toEqual([...graph.out.get("src.md")!].sort());
    expect(fromIndex).toEqual(["notes/deep/c.md", "projects/x/readme.md", "reference/B.md"]);
  });
});

describe("unlinkUnresolved", () => {
  it("writes a link to a note that is not there as its words, and leaves code and resolving links alone", () => {
    const known = new Set(["launchd-path"]);
    const text = [
      "See [[launchd-path]] and [[no-such-note|the old note]] and [[gone#Heading]].",
      "An embed ![[missing.png]] and `[[in code]]` stay apart.",
      "```",
      "[[in a fence]]",
      "```",
    ].join("\n");
    const r = unlinkUnresolved(text, (t) => known.has(t));
    expect(r.text).toBe(
      ["See [[launchd-path]] and the old note and gone.", "An embed ![[missing.png]] and `[[in code]]` stay apart.", "```", "[[in a fence]]", "```"].join("\n"),
    );
    expect(r.unlinked).toEqual(["no-such-note", "gone"]);
  });
});
