/**
 * Edits a JSON file's text in place, as an editor does: only the values that change are
 * rewritten, and everything else keeps its bytes (indentation, one-line arrays, key order, the
 * line ends, the final newline). A member added and then removed again gives back the text as it
 * was, because removing a member takes out exactly the separator and value that adding it put in.
 */

/** A file that parsed as JSON but cannot be edited in place: nested too deep, say. */
export class JsonTextError extends Error {}

// Deeper than any settings file; the parser and the patch recurse once per level.
const MAX_DEPTH = 200;
// Two arrays longer than this (multiplied) are replaced whole rather than matched item by item.
const MAX_MATCH_CELLS = 1_000_000;

interface Node {
  kind: "object" | "array" | "scalar";
  start: number;
  end: number;
  members: Member[];
}

interface Member {
  /** Undefined in an array. */
  key?: string;
  /** Where the member starts: its key in an object, its value in an array. */
  start: number;
  /** Where its key ends, in an object. */
  keyEnd: number;
  value: Node;
}

const WS = /[ \t\r\n]*/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** The text's values with where each starts and ends. Strict JSON only, as JSON.parse takes it. */
function parseTree(text: string): Node {
  let pos = 0;
  const token = (re: RegExp): string => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) throw new JsonTextError(`is not JSON at offset ${pos}`);
    pos = re.lastIndex;
    return m[0];
  };
  const expect = (c: string): void => {
    token(WS);
    if (text[pos] !== c) throw new JsonTextError(`is not JSON at offset ${pos}`);
    pos++;
  };
  const value = (depth: number): Node => {
    if (depth > MAX_DEPTH) throw new JsonTextError(`is nested more than ${MAX_DEPTH} levels deep`);
    token(WS);
    const start = pos;
    const open = text[pos];
    if (open !== "{" && open !== "[") {
      token(SCALAR);
      return { kind: "scalar", start, end: pos, members: [] };
    }
    pos++;
    const close = open === "{" ? "}" : "]";
    const members: Member[] = [];
    token(WS);
    if (text[pos] === close) pos++;
    else {
      for (let sep = ","; sep !== close; sep = text[pos - 1]) {
        if (sep !== ",") throw new JsonTextError(`is not JSON at offset ${pos - 1}`);
        token(WS);
        const at = pos;
        const key = open === "{" ? (JSON.parse(token(STRING)) as string) : undefined;
        const keyEnd = pos;
        if (key !== undefined) expect(":");
        members.push({ key, start: at, keyEnd, value: value(depth + 1) });
        token(WS);
        pos++;
      }
    }
    return { kind: open === "{" ? "object" : "array", start, end: pos, members };
  };
  const root = value(0);
  token(WS);
  if (pos !== text.length) throw new JsonTextError(`is not JSON at offset ${pos}`);
  return root;
}

type Path = (string | number)[];
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The same JSON value, whatever the order of an object's keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObj(a) || !isObj(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && sameJson(a[k], b[k]));
}

// A value as one string, keys sorted, so array items can be matched by string comparison.
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** How the file writes what is added to it. */
interface Style {
  eol: string;
  unit: string;
  /** Written in a one-line object: after the colon, between members, inside the braces. */
  colon: string;
  comma: string;
  pad: string;
}

function styleOf(text: string, root: Node): Style {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = /^([ \t]+)["{[\]}]/m.exec(text)?.[1] ?? "  ";
  // The first one-line object with members shows how the person writes one.
  let sample: Node | undefined;
  const find = (n: Node): void => {
    if (sample || n.kind === "scalar") return;
    if (n.kind === "object" && n.members.length > 0 && !text.slice(n.start, n.end).includes("\n")) sample = n;
    else n.members.forEach((m) => find(m.value));
  };
  find(root);
  if (!sample) return { eol, unit, colon: ": ", comma: ", ", pad: "" };
  const [first, second] = sample.members;
  return {
    eol,
    unit,
    colon: text.slice(first.keyEnd, first.value.start),
    comma: second ? text.slice(first.value.end, second.start) : ", ",
    pad: text.slice(sample.start + 1, first.start),
  };
}

/** `text`, valid JSON, edited in place so that it parses to `next`; a file with nothing in it is written anew. */
export function editJsonText(text: string, next: unknown): string {
  const target = JSON.parse(JSON.stringify(next) ?? "null") as unknown;
  if (text.trim() === "") return JSON.stringify(target, null, 2) + "\n";
  const editor = new Editor(text);
  if (sameJson(JSON.parse(text), target)) return text;
  editor.patch([], JSON.parse(text), target);
  if (sameJson(JSON.parse(editor.text), target)) return editor.text;
  // Not reached by any edit known to the tests; should one be missed, the content still comes out right.
  const s = editor.style;
  return JSON.stringify(target, null, s.unit).replace(/\n/g, s.eol) + (/\r?\n$/.test(text) ? s.eol : "");
}

class Editor {
  readonly style: Style;

  constructor(public text: string) {
    this.style = styleOf(text, parseTree(text));
  }

  patch(path: Path, a: unknown, b: unknown): void {
    if (sameJson(a, b)) return;
    if (isObj(a) && isObj(b)) this.patchObject(path, a, b);
    else if (Array.isArray(a) && Array.isArray(b)) this.patchArray(path, a, b);
    else this.set(path, b);
  }

  private patchObject(path: Path, a: Obj, b: Obj): void {
    const gone = new Set(Object.keys(a).filter((k) => !has(b, k)));
    // Every member of a removed key, duplicates too: JSON.parse would read an earlier one.
    if (gone.size > 0) this.remove(path, (m) => m.key !== undefined && gone.has(m.key));
    for (const k of Object.keys(b)) if (has(a, k)) this.patch([...path, k], a[k], b[k]);
    for (const k of Object.keys(b)) if (!has(a, k)) this.insert(path, Infinity, k, b[k]);
  }

  /**
   * Items that stay are matched (longest common subsequence); between two matched items, the old
   * ones are patched into the new ones where both are, and the rest removed or added. From the
   * end backwards, so the indices still to be used keep pointing at the same items.
   */
  private patchArray(path: Path, a: unknown[], b: unknown[]): void {
    if (a.length * b.length > MAX_MATCH_CELLS) return this.set(path, b);
    const anchors: [number, number][] = [[-1, -1], ...commonSubsequence(a.map(canonical), b.map(canonical)), [a.length, b.length]];
    for (let g = anchors.length - 1; g > 0; g--) {
      const [i0, j0] = [anchors[g - 1][0] + 1, anchors[g - 1][1] + 1];
      const [i1, j1] = anchors[g];
      const paired = Math.min(i1 - i0, j1 - j0);
      if (i1 - i0 > paired) this.remove(path, (_, i) => i >= i0 + paired && i < i1);
      for (let t = 0; t < j1 - j0 - paired; t++) this.insert(path, i0 + paired + t, undefined, b[j0 + paired + t]);
      for (let t = paired - 1; t >= 0; t--) this.patch([...path, i0 + t], a[i0 + t], b[j0 + t]);
    }
  }

  /** The node at `path` in the text as it is now, and whether its container is written on one line. */
  private locate(path: Path): { node: Node; inline: boolean } {
    let node = parseTree(this.text);
    let inline = this.isInline(node, false);
    for (const step of path) {
      const m = typeof step === "number" ? node.members[step] : [...node.members].reverse().find((x) => x.key === step);
      if (!m) throw new JsonTextError(`has no ${String(step)} where expected`);
      node = m.value;
      inline = this.isInline(node, inline);
    }
    return { node, inline };
  }

  // A container is written on one line when its first member is on its opening bracket's line;
  // an empty one, as its parent is (the whole file is not).
  private isInline(node: Node, parent: boolean): boolean {
    if (node.members.length === 0) return parent;
    return !this.text.slice(node.start, node.members[0].start).includes("\n");
  }

  private splice(start: number, end: number, content: string): void {
    this.text = this.text.slice(0, start) + content + this.text.slice(end);
  }

  private indentAt(offset: number): string {
    const lineStart = this.text.lastIndexOf("\n", offset - 1) + 1;
    return /^[ \t]*/.exec(this.text.slice(lineStart, offset))![0];
  }

  private render(value: unknown, inline: boolean, indent: string): string {
    const s = this.style;
    if (!inline)
      return JSON.stringify(value, null, s.unit)
        .split("\n")
        .join(s.eol + indent);
    const one = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(one).join(s.comma)}]`;
      if (!isObj(v)) return JSON.stringify(v);
      const keys = Object.keys(v);
      return keys.length === 0 ? "{}" : `{${s.pad}${keys.map((k) => `${JSON.stringify(k)}${s.colon}${one(v[k])}`).join(s.comma)}${s.pad}}`;
    };
    return one(value);
  }

  private set(path: Path, value: unknown): void {
    const parent = path.length > 0 ? this.locate(path.slice(0, -1)).inline : false;
    const { node } = this.locate(path);
    this.splice(node.start, node.end, this.render(value, parent, this.indentAt(node.start)));
  }

  /** Removes the members `drop` picks, each with the separator before it (the first, with the one after). */
  private remove(path: Path, drop: (m: Member, i: number) => boolean): void {
    const { node } = this.locate(path);
    const ms = node.members;
    const gone = ms.map(drop);
    if (gone.every(Boolean)) return this.splice(node.start + 1, node.end - 1, "");
    const kept = gone.indexOf(false);
    const spans: [number, number][] = kept > 0 ? [[ms[0].start, ms[kept].start]] : [];
    for (let i = kept + 1; i < ms.length; i++) if (gone[i]) spans.push([ms[i - 1].value.end, ms[i].value.end]);
    for (const [start, end] of spans.reverse()) this.splice(start, end, "");
  }

  /** Adds a member before the `index`th (at the end for Infinity), separated as its neighbours are. */
  private insert(path: Path, index: number, key: string | undefined, value: unknown): void {
    const { node, inline } = this.locate(path);
    const ms = node.members;
    const n = ms.length;
    const text = (indent: string): string =>
      `${key === undefined ? "" : `${JSON.stringify(key)}${inline ? this.style.colon : ": "}`}${this.render(value, inline, indent)}`;
    if (n === 0) {
      const outer = this.indentAt(node.start);
      const pad = inline && key !== undefined ? this.style.pad : "";
      const inner = inline ? pad + text("") + pad : `${this.style.eol}${outer}${this.style.unit}${text(outer + this.style.unit)}${this.style.eol}${outer}`;
      return this.splice(node.start + 1, node.end - 1, inner);
    }
    const between = (i: number): string => this.text.slice(ms[i - 1].value.end, ms[i].start);
    const sep = n >= 2 ? between(n - 1) : inline ? this.style.comma : `,${this.style.eol}${this.indentAt(ms[0].start)}`;
    const at = Math.min(index, n);
    const indent = this.indentAt(ms[Math.min(at, n - 1)].start);
    if (at === 0) this.splice(ms[0].start, ms[0].start, text(indent) + (n >= 2 ? between(1) : sep));
    else this.splice(ms[at - 1].value.end, ms[at - 1].value.end, (at < n ? between(at) : sep) + text(indent));
  }
}

/** The pairs (i, j) of a longest common subsequence of `a` and `b`, in order; the caller bounds their lengths. */
export function commonSubsequence(a: string[], b: string[]): [number, number][] {
  const w = b.length + 1;
  const len = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) len[i * w + j] = a[i] === b[j] ? len[(i + 1) * w + j + 1] + 1 : Math.max(len[(i + 1) * w + j], len[i * w + j + 1]);
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (len[(i + 1) * w + j] >= len[i * w + j + 1]) i++;
    else j++;
  }
  return pairs;
}
