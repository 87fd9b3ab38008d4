/** The import table of docs/architecture.md, as `npm run lint` enforces it (eslint.config.mjs). */

import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint, type Linter } from "eslint";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers";

const eslint = new ESLint({ cwd: ROOT });

/** The lint messages of the import rules for a file written at `path` (under ROOT) for the call, then removed. */
async function importProblems(path: string, text: string): Promise<Linter.LintMessage[]> {
  const abs = join(ROOT, path);
  writeFileSync(abs, text, { flag: "wx" });
  try {
    const [result] = await eslint.lintFiles([abs]);
    return result.messages.filter(
      (m) => m.ruleId === "import-x/no-restricted-paths" || m.ruleId === "no-restricted-imports" || m.ruleId === "import-x/no-unresolved",
    );
  } finally {
    rmSync(abs, { force: true });
  }
}

const unique = `zz-import-table-${process.pid}`;

describe("the import table", () => {
  it("fails a low room's import of a higher one, and passes what its row allows", async () => {
    const problems = await importProblems(
      `src/core/io/${unique}.ts`,
      'import { readFileSync } from "node:fs";\nimport { similarCards } from "../recall/similar";\nexport const both = [readFileSync, similarCards];\n',
    );
    expect(problems).toEqual([
      expect.objectContaining({
        ruleId: "import-x/no-restricted-paths",
        line: 2,
        severity: 2,
        message: expect.stringContaining("src/core/io may import nothing of ours"),
      }),
    ]);

    const allowed = await importProblems(
      `src/core/card/${unique}.ts`,
      'import { clip } from "../text/clip";\nimport { writeFileAtomic } from "../io/atomic";\nexport const both = [clip, writeFileAtomic];\n',
    );
    expect(allowed).toEqual([]);
  });

  it("fails src/core importing obsidian, or the plugin", async () => {
    const problems = await importProblems(
      `src/core/${unique}.ts`,
      'import { Notice } from "obsidian";\nimport { yieldToUi } from "../plugin/yield-to-ui";\nexport const both = [Notice, yieldToUi];\n',
    );
    expect(problems).toEqual([
      expect.objectContaining({ ruleId: "no-restricted-imports", line: 1, severity: 2, message: expect.stringContaining("only src/plugin imports obsidian") }),
      expect.objectContaining({
        ruleId: "import-x/no-restricted-paths",
        line: 2,
        severity: 2,
        message: expect.stringContaining("src/core imports neither the plugin nor the hook bridge"),
      }),
    ]);
  });

  it("keeps nodemailer to the mail sender's own folder: not in src/core, not in the bridge's other files", async () => {
    const text = 'import { createTransport } from "nodemailer";\nexport const t = createTransport;\n';
    for (const path of [`src/core/digest/${unique}.ts`, `hook-bridge/src/commands/${unique}.ts`]) {
      expect(await importProblems(path, text), path).toEqual([
        expect.objectContaining({ ruleId: "no-restricted-imports", line: 1, severity: 2, message: expect.stringContaining("only") }),
      ]);
    }
    expect(await importProblems(`hook-bridge/src/mail/${unique}.ts`, text)).toEqual([]);
  });

  it("has a row for every folder and file of src/core", async () => {
    const rooms = readdirSync(join(ROOT, "src/core"), { withFileTypes: true }).map((e) => (e.isDirectory() ? `src/core/${e.name}/x.ts` : `src/core/${e.name}`));
    const unruled: string[] = [];
    for (const file of rooms) {
      const config = (await eslint.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
      const rule = config.rules?.["import-x/no-restricted-paths"];
      if (!Array.isArray(rule) || !JSON.stringify(rule).includes('"from":"./src/core"')) unruled.push(file);
    }
    expect(unruled).toEqual([]);
  });
});
