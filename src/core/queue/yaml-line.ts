/** Writes one YAML scalar safely: plain when it can be, double-quoted when it must. */

// Anything YAML could read as another type, or that holds syntax, gets quotes.
const NEEDS_QUOTES = /^$|^[\s-?:,[\]{}#&*!|>'"%@`]|[:#]\s|\s$|^(?:true|false|yes|no|on|off|null|~|[-+]?\d[\d._]*(?:e[-+]?\d+)?)$/i;

export function stringify(value: string): string {
  const v = value.replace(/\r?\n/g, " ");
  return NEEDS_QUOTES.test(v) || /[:#"\\]/.test(v) ? JSON.stringify(v) : v;
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
