import { describe, expect, it } from "vitest";
import { addRelatedLink, appendDated } from "../../../src/core/card/related";
import { isRelatedHeadingSetting, relatedHeading } from "../../../src/core/card/related-heading";

describe("relatedHeading", () => {
  it("follows the heading most of the vault's cards have", () => {
    expect(relatedHeading("", ["# a\n\n## 相關\n- [[b]]\n", "# b\n\n## 相關\n- [[a]]\n", "# c\n\n## Related\n- [[a]]\n"])).toBe("## 相關");
    expect(relatedHeading("", ["## 相关\n- [[x]]", "## Related\n", "## 相关\n"])).toBe("## 相关");
  });

  it("is ## Related in a vault without related sections, and on a tie", () => {
    expect(relatedHeading("", [])).toBe("## Related");
    expect(relatedHeading("", ["# no section"])).toBe("## Related");
    expect(relatedHeading("", ["## 相關\n", "## Related\n"])).toBe("## Related");
  });

  it("lets the setting win over the vault", () => {
    expect(relatedHeading("## See also", ["## 相關\n"])).toBe("## See also");
  });

  it("accepts as a setting only one level-two heading, or empty", () => {
    expect(["", "## Related", "## 相關", "## See also"].every(isRelatedHeadingSetting)).toBe(true);
    expect(["Related", "# Related", "### Related", "## a\n## b", "##"].some(isRelatedHeadingSetting)).toBe(false);
  });
});

describe("related sections under either heading", () => {
  it("adds a link to the section a card has, whichever heading it uses", () => {
    expect(addRelatedLink("# A\n\n## 相關\n- [[x]]\n", "y", "## Related")).toBe("# A\n\n## 相關\n- [[x]]\n- [[y]]\n");
    expect(addRelatedLink("# A\n\n## Related\n- [[x]]\n", "y", "## 相關")).toBe("# A\n\n## Related\n- [[x]]\n- [[y]]\n");
    expect(addRelatedLink("# A\n\n## See also\n- [[x]]\n", "y", "## See also")).toBe("# A\n\n## See also\n- [[x]]\n- [[y]]\n");
  });

  it("puts a dated section before a closing related section of either heading", () => {
    for (const h of ["## 相關", "## Related"]) {
      expect(appendDated(`# A\n\nText.\n\n${h}\n- [[x]]\n`, "2026-11-30", "New.", "s")).toBe(
        `# A\n\nText.\n\n## 2026-11-30\n\nNew.\n\n_From session s._\n\n${h}\n- [[x]]\n`,
      );
    }
  });
});
