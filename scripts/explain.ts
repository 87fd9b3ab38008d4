/** Development aid: why a prompt does or does not reach a note. `node scripts/run-ts.mjs scripts/explain.ts VAULT "prompt" [expected-path]` */

import { defaultConfig } from "../src/core/config";
import { buildIndexFromDisk } from "../src/core/index/build-from-disk";
import { synonymPhrases } from "../src/core/index/index-options";
import { scoreGroups } from "../src/core/index/scorer";
import { buildQuery } from "../src/core/recall/query";

const [vault, prompt, expected] = process.argv.slice(2);
const cfg = defaultConfig();
const { index } = buildIndexFromDisk(vault, cfg);
const groups = buildQuery(prompt, index.indexOptions, synonymPhrases(index.indexOptions));
console.log("groups:", groups.map((g) => g.alternatives.map(([t, w]) => `${t}${w === 1 ? "" : `×${w}`}`).join("|")).join("  "));
const ranked = scoreGroups(groups, index);
ranked.slice(0, 8).forEach((s, i) => console.log(i + 1, s.score.toFixed(1), s.matched, index.doc(s.doc)?.path));
if (expected) {
  const at = ranked.findIndex((s) => index.doc(s.doc)?.path === expected);
  console.log("expected at", at + 1, at >= 0 ? ranked[at].score.toFixed(1) + " matched " + ranked[at].matched : "");
  for (const g of groups) {
    const per = g.alternatives
      .map(([t]) => {
        const list = index.postings(t) ?? [];
        for (let i = 0; i < list.length; i += 2) if (index.doc(list[i])?.path === expected) return `${t}:${(list[i + 1] / 1000).toFixed(1)}`;
        return null;
      })
      .filter(Boolean);
    console.log("  ", g.term, "df", (index.postings(g.term)?.length ?? 0) / 2, per.join(" "));
  }
}
