import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_FILES, MAIL_FILE } from "../../src/core/install/hook-commands";
import { parseCard } from "../../src/core/card/card";
import { ROOT } from "../helpers";

// What runs code from a string: a note's frontmatter reaching either would be a note that runs.
const RUNS_STRINGS = /new Function\b|(?<![\w.$])eval\(/;

describe("the built bundles", () => {
  it("hold no eval and no new Function: the plugin and the hook bridge", () => {
    for (const file of ["main.js", ...BRIDGE_FILES.map((f) => join("hook-bridge", "dist", f))]) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(RUNS_STRINGS.exec(text)?.[0], file).toBeUndefined();
    }
  });

  it("leave zod out of what every prompt loads: the settings are read from the snapshot's header there", () => {
    for (const file of ["vault-memory.cjs", "vault-memory-recall.cjs", "vault-memory-semantic.cjs"]) {
      expect(readFileSync(join(ROOT, "hook-bridge", "dist", file), "utf8"), file).not.toContain("$ZodType");
    }
    // The check finds zod where it is: the commands read config.json through it.
    expect(readFileSync(join(ROOT, "hook-bridge", "dist", "vault-memory-commands.cjs"), "utf8")).toContain("$ZodType");
  });

  it("keep nodemailer in the mail bundle alone: the Stop and SessionStart hooks' commands bundle and the prompt hook's files never parse it", () => {
    // Its name, and a message of its SMTP client.
    const nodemailer = /nodemailer|Greeting never received/i;
    for (const file of [...BRIDGE_FILES.filter((f) => f !== MAIL_FILE), "vault-memory-mcp.cjs"])
      expect(nodemailer.exec(readFileSync(join(ROOT, "hook-bridge", "dist", file), "utf8"))?.[0], file).toBeUndefined();
    // The check finds it where it is.
    const mail = readFileSync(join(ROOT, "hook-bridge", "dist", MAIL_FILE), "utf8");
    expect(mail).toMatch(/nodemailer/i);
    expect(mail).toContain("Greeting never received");
  });

  it("still read YAML frontmatter, and still refuse JavaScript frontmatter", () => {
    expect(parseCard("a.md", "---\nname: A\ntags: [x, y]\n---\nBody\n").frontmatter).toMatchObject({ name: "A", tags: ["x", "y"] });
    expect(parseCard("b.md", "---js\n{ name: (() => { throw new Error('ran') })() }\n---\nBody\n").frontmatterError).toMatch(/not run/);
    expect(parseCard("c.md", "---\nf: !!js/function 'function () { return 1 }'\n---\nBody\n").frontmatterError).not.toBe("");
  });
});
