/** Shortens text for display to a number of characters, by code point, so no emoji or CJK character is split. */

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, Math.max(0, max - 1)).join("") + "…";
}
