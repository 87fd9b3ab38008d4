/**
 * Reading settings by their zod schemas, forgivingly: each room's `settings.ts` declares its keys
 * with `setting()` (what a value must be, its default, and that in words), and `readSettings`
 * takes each key on its own. A wrong value is that key's default and a message a person can act
 * on, never an error: a typo in one setting must not switch recall off.
 */

// zod/mini: the same checks as zod's classic API, in a twentieth of the code, which the bridge's
// commands and the plugin load at every start.
import * as z from "zod/mini";

type Raw = Record<string, unknown>;

/** A room's settings: an object of `setting()`s and of nested rooms. */
export type SettingsSchema = z.ZodMiniObject;

// The values most settings take, shared: each schema zod builds costs a cold process time.
export const nonNegative = z.number().check(z.minimum(0));
export const trueOrFalse = z.boolean();
export const text = z.string();
export const textList = z.array(text);

/** Each setting's values in words, for the messages. */
const EXPECTED = new WeakMap<object, string>();

/**
 * One setting: `schema` for the values it takes, `fallback` when it is missing or wrong, and
 * `expected`, the values it takes in words, for the message ("a whole number from 1 to 20").
 */
export function setting<T extends z.ZodMiniType>(schema: T, fallback: z.output<T>, expected: string): z.ZodMiniDefault<T> {
  const s = z._default(schema, fallback as never);
  EXPECTED.set(s, expected);
  return s;
}

/** A table of any keys (record settings): its entries are checked one by one, and a wrong one is left out. */
export function table<K extends z.ZodMiniType<string, string>, V extends z.ZodMiniType>(key: K, value: V, valueExpected: string): z.ZodMiniRecord<K, V> {
  EXPECTED.set(value, valueExpected);
  return z.record(key, value);
}

/** The defaults of a room, as new objects each time: a caller may edit its lists. */
export function defaultsOf<S extends SettingsSchema>(schema: S): z.output<S> {
  return readSettings(schema, undefined, "", []);
}

/**
 * `raw` read by `schema`: each key that holds a value the schema takes, the default for every other;
 * `problems` gets one message per wrong value and per key that is not a setting. `where` is the
 * room's path in the messages ("digest", "recall.scoring"), "" for the top.
 */
export function readSettings<S extends SettingsSchema>(schema: S, raw: unknown, where: string, problems: string[]): z.output<S> {
  const shape = schema._zod.def.shape as Record<string, z.ZodMiniType>;
  if (raw !== undefined && !isObject(raw)) problems.push(`${where || "the settings"}: expected an object of settings, got ${shown(raw)}; using the defaults`);
  const given = isObject(raw) ? raw : {};
  const out: Raw = {};
  for (const [key, field] of Object.entries(shape)) out[key] = readField(field, given[key], pathOf(where, key), problems);
  for (const key of Object.keys(given)) {
    if (Object.hasOwn(shape, key)) continue;
    const near = nearest(key, Object.keys(shape));
    problems.push(`${pathOf(where, key)}: not a setting${near ? ` (did you mean ${near}?)` : ""}; ignored`);
  }
  return out as z.output<S>;
}

function readField(field: z.ZodMiniType, value: unknown, path: string, problems: string[]): unknown {
  const inner = field instanceof z.ZodMiniDefault ? (field._zod.def.innerType as z.ZodMiniType) : field;
  if (inner instanceof z.ZodMiniObject) return readSettings(inner, value, path, problems);
  const fallback = (): unknown => structuredClone(field.parse(undefined));
  if (value === undefined) return fallback();
  if (inner instanceof z.ZodMiniRecord && isObject(value)) return readTable(inner, value, path, problems);
  const read = field.safeParse(value);
  if (read.success) return read.data;
  problems.push(`${path}: expected ${EXPECTED.get(field) ?? "another value"}, got ${shown(value)}; using ${shown(fallback())}`);
  return fallback();
}

/** A table the person wrote replaces the default whole (removing a key removes it); each wrong entry is left out. */
function readTable(record: z.ZodMiniRecord, value: Raw, path: string, problems: string[]): Raw {
  const out = Object.create(null) as Raw;
  const valueType = record._zod.def.valueType as z.ZodMiniType;
  for (const [k, v] of Object.entries(value)) {
    const key = (record._zod.def.keyType as z.ZodMiniType).safeParse(k);
    const read = valueType.safeParse(v);
    if (key.success && read.success) out[key.data as string] = read.data;
    else problems.push(`${pathOf(path, k)}: expected ${EXPECTED.get(valueType) ?? "another value"}, got ${shown(v)}; left out`);
  }
  return out;
}

const pathOf = (where: string, key: string): string => (where ? `${where}.${key}` : key);

function isObject(v: unknown): v is Raw {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value as the person wrote it in JSON, cut short: a message names it, not a page of it. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The key `key` most likely meant: one a letter or two away, or the same but for case. */
function nearest(key: string, keys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of keys) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0 : distance(key, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Levenshtein distance, for the short keys of a settings file. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
