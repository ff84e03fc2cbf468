/**
 * JSON.stringify that reuses the text of objects known never to change. An answer can repeat
 * the same few thousand entries (the package answers' findings that do not depend on the
 * version asked): serialising them again for every question cost more than computing the
 * answer. An object passed to keepJson (frozen, plain data) is serialised once, the first
 * time it is met; stringifyReusing walks the containers around such objects and splices the
 * kept text in, and hands everything else to JSON.stringify.
 *
 * The output is exactly JSON.stringify's for plain data (objects, arrays, strings, numbers,
 * booleans, null; `undefined` members skipped, `undefined` items written as null), which is
 * all the answers hold (no toJSON, no Dates).
 */
const kept = new WeakMap<object, string | null>();

/** Marks a frozen plain object whose JSON can be kept; returns it. */
export function keepJson<T extends object>(value: Readonly<T>): T {
  if (!Object.isFrozen(value)) throw new Error('keepJson: only a frozen object can keep its JSON');
  kept.set(value, null);
  return value as T;
}

function keptText(value: object): string | undefined {
  const text = kept.get(value);
  if (text === undefined) return undefined;
  if (text !== null) return text;
  const made = JSON.stringify(value);
  kept.set(value, made);
  return made;
}

/**
 * JSON.stringify(value), reusing kept text. Containers are walked `depth` levels down (the
 * kept objects sit at most that deep in the answers); below, JSON.stringify does the rest.
 */
export function stringifyReusing(value: unknown, depth = 4): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const text = keptText(value);
  if (text !== undefined) return text;
  if (depth === 0) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out += ',';
      out += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : stringifyReusing(item, depth - 1);
    }
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${stringifyReusing(member, depth - 1)}`;
    first = false;
  }
  return `${out}}`;
}
