/** Writes one YAML scalar safely: plain when it can be, double-quoted when it must. */

// Anything YAML could read as another type, or that holds syntax, gets quotes.
const NEEDS_QUOTES = /^$|^[\s-?:,[\]{}#&*!|>'"%@`]|[:#]\s|\s$|^(?:true|false|yes|no|on|off|null|~|[-+]?\d[\d._]*(?:e[-+]?\d+)?)$/i;

export function stringify(value: string): string {
  const v = value.replace(/\r?\n/g, " ");
  return NEEDS_QUOTES.test(v) || /[:#"\\]/.test(v) ? JSON.stringify(v) : v;
}
