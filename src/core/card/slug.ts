/** The one file-name slug: a readable name that every OS and Obsidian accept, CJK kept. */

// Windows refuses these as file names whatever the extension, so a card named "Con" could not sync there.
const RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/;
// Long enough to say what the card is; short enough that folder + name stays under Windows' 260.
const MAX_CHARS = 80;

/**
 * Whether Windows refuses `name` as a file name: a reserved device name, whatever follows its
 * first dot (`con.md`, `aux.tar.gz`) and with spaces before it (`CON .txt`), in any case.
 */
export function isWindowsReserved(name: string): boolean {
  return RESERVED.test(name.split(".")[0].replace(/ +$/, "").toLowerCase());
}

export function slugify(name: string, fallback = "card"): string {
  const dashed = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  // Cut by code points, so a character outside the BMP (𠮷) is never halved into a lone surrogate.
  const slug = Array.from(dashed).slice(0, MAX_CHARS).join("").replace(/-+$/, "");
  if (slug === "") return fallback;
  return RESERVED.test(slug) ? `${slug}-${fallback}` : slug;
}
