/**
 * What the digest and enrich both do with an LLM's answer before trusting any of it: find the
 * JSON in it, refuse it with an AnswerError, and refuse text with characters that hide or break lines.
 */

export class AnswerError extends Error {}

/** Finds the JSON object in the answer: bare, in a ```json fence, or inside `claude -p --output-format json`'s result. */
export function extractJson(raw: string): unknown {
  let text = raw.trim();
  try {
    const outer = JSON.parse(text) as unknown;
    if (outer && typeof outer === "object" && typeof (outer as { result?: unknown }).result === "string") text = (outer as { result: string }).result.trim();
    else return outer;
  } catch {
    /* not JSON as a whole */
  }
  const fence = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text);
  if (fence) text = fence[1];
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) throw new AnswerError("the answer holds no JSON object");
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch (err) {
    throw new AnswerError(`the answer is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// Invisible or line-breaking characters: YAML 1.1 readers break lines at U+2028/9, and the rest
// hide what the text says from the person reading the card.
/* eslint-disable no-control-regex -- finding them is the point */
export const UNSAFE_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/* eslint-enable no-control-regex -- only the pattern above */
