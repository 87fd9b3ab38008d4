/** The one file-name slug: a readable name that every OS and Obsidian accept, CJK kept. */

// Windows refuses these as file names whatever the extension, so a card named "Con" could not sync there.
const RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/;
// Long enough to say what the card is; short enough that folder + name stays under Windows' 260.
const MAX_CHARS = 80;
// And short enough in bytes for the file systems' 255 with a number and `.md` after it: eighty
// Chinese characters are 240 bytes (the digest's answers allow 200).
const MAX_BYTES = 180;

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
  let bytes = 0;
  const kept: string[] = [];
  for (const c of Array.from(dashed).slice(0, MAX_CHARS)) {
    bytes += Buffer.byteLength(c, "utf8");
    if (bytes > MAX_BYTES) break;
    kept.push(c);
  }
  const slug = kept.join("").replace(/-+$/, "");
  if (slug === "") return fallback;
  return RESERVED.test(slug) ? `${slug}-${fallback}` : slug;
}
