/** Writes one YAML scalar safely: plain when it can be, double-quoted when it must. */

// Anything YAML could read as another type, or that holds syntax, gets quotes.
const NEEDS_QUOTES = /^$|^[\s-?:,[\]{}#&*!|>'"%@`]|[:#]\s|\s$|^(?:true|false|yes|no|on|off|null|~|[-+]?\d[\d._]*(?:e[-+]?\d+)?)$/i;

// Numbers in the other notations YAML reads (0x1F, .5, .inf, .nan) and dates, which it turns into times.
const OTHER_SCALARS = /^[-+]?(?:0[xob]|\.\d|\.(?:inf|nan)$)|^\d{4}-\d\d-\d\d/i;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// eslint-disable-next-line no-control-regex -- removing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/g;

export function stringify(value: string): string {
  // Control characters and lone surrogates would make the whole frontmatter unreadable.
  const v = value
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(/\r\n?|\n/g, " ")
    .replace(CONTROL, " ");
  return NEEDS_QUOTES.test(v) || OTHER_SCALARS.test(v) || /[:#"\\]/.test(v) ? JSON.stringify(v) : v;
}

/** One item of a flow sequence (`[a, b]`): there a comma or bracket would end or split the item. */
export function stringifyItem(value: string): string {
  const v = stringify(value);
  return v.startsWith('"') || !/[,[\]{}]/.test(v) ? v : JSON.stringify(v);
}

/** A flow sequence of strings, each item quoted as it needs. */
export function stringifyList(values: readonly string[]): string {
  return `[${values.map(stringifyItem).join(", ")}]`;
}
