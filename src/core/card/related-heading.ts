/** Which heading opens a card's related section: the setting, else the one the vault's cards already use. */

export const RELATED_HEADINGS = ["## Related", "## 相關", "## 相关"] as const;
export const DEFAULT_RELATED_HEADING: string = RELATED_HEADINGS[0];

/** Any related section this vault may hold, whichever heading wrote it, plus the configured one. */
export function relatedSectionRe(heading = DEFAULT_RELATED_HEADING): RegExp {
  const names = [...new Set([...RELATED_HEADINGS, heading].map((h) => h.replace(/^##\s+/, "").trim()))];
  return new RegExp(`^## (?:${names.map(escapeRe).join("|")})\\s*$`, "m");
}

/**
 * The heading new related sections get. A setting wins; "" follows the vault, so that a vault
 * written in Chinese keeps `## 相關` and a mixed one keeps what most of its cards say. Ties and
 * a vault without any related section get `## Related`, which reads in every language.
 */
export function relatedHeading(setting: string, texts: Iterable<string>): string {
  if (setting.trim() !== "") return setting.trim();
  const counts = new Map<string, number>();
  const any = relatedSectionRe();
  for (const text of texts) {
    const m = any.exec(text);
    if (m) counts.set(m[0].trim(), (counts.get(m[0].trim()) ?? 0) + 1);
  }
  let best = DEFAULT_RELATED_HEADING;
  for (const h of RELATED_HEADINGS) if ((counts.get(h) ?? 0) > (counts.get(best) ?? 0)) best = h;
  return best;
}

/** A valid setting: "" or one level-two heading on one line. */
export function isRelatedHeadingSetting(value: string): boolean {
  return value === "" || /^## \S[^\r\n]{0,60}$/.test(value);
}

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
