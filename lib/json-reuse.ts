/**
 * JSON.stringify as bytes, reusing the encoded text of objects known never to change. An answer
 * can repeat the same few thousand entries (the package answers' findings that do not depend on
 * the version asked): serialising and encoding them again for every question cost more than
 * computing the answer. An object passed to keepJson (frozen, plain data) is serialised and
 * UTF-8 encoded once, the first time it is met; jsonBytesReusing walks the containers around
 * such objects, hands everything else to JSON.stringify, and joins the pieces as bytes (a large
 * answer is never one big string to flatten and encode again).
 *
 * The bytes are exactly those of JSON.stringify for plain data (objects, arrays, strings,
 * numbers, booleans, null; `undefined` members skipped, `undefined` items written as null),
 * which is all the answers hold (no toJSON, no Dates).
 */
const kept = new WeakMap<object, Buffer | null>();

/** Marks a frozen plain object whose JSON can be kept; returns it. */
export function keepJson<T extends object>(value: Readonly<T>): T {
  if (!Object.isFrozen(value)) throw new Error('keepJson: only a frozen object can keep its JSON');
  kept.set(value, null);
  return value as T;
}

/** Objects whose first members are those of a kept object (see extendsKept). */
const extended = new WeakMap<object, object>();

/**
 * Marks `value`, made as `{ ...base, more }` from a kept `base` with members of its own after
 * base's (none of base's replaced), so that its JSON starts with base's kept bytes. Returns it.
 */
export function extendsKept<T extends object>(value: T, base: object): T {
  if (!kept.has(base)) throw new Error('extendsKept: the base must be kept (keepJson)');
  extended.set(value, base);
  return value;
}

function keptBytes(value: object): Buffer | undefined {
  const bytes = kept.get(value);
  if (bytes === undefined) return undefined;
  if (bytes !== null) return bytes;
  const made = Buffer.from(JSON.stringify(value));
  kept.set(value, made);
  return made;
}

/**
 * Collects the output: text pieces are joined, kept bytes are referenced as they are; the
 * answer is then written once into one buffer of its exact size (no buffer per text piece, no
 * second copy to join them: a batch answer has thousands of pieces).
 */
class Pieces {
  private readonly parts: (string | Buffer)[] = [];
  private text = '';
  private length = 0;

  add(text: string): void {
    this.text += text;
  }

  addBytes(bytes: Buffer): void {
    this.flushText();
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  private flushText(): void {
    if (this.text === '') return;
    this.parts.push(this.text);
    this.length += Buffer.byteLength(this.text);
    this.text = '';
  }

  bytes(): Buffer {
    this.flushText();
    const only = this.parts.length === 1 ? this.parts[0]! : undefined;
    if (only !== undefined) return typeof only === 'string' ? Buffer.from(only) : only;
    const out = Buffer.allocUnsafe(this.length);
    let at = 0;
    for (const part of this.parts) at += typeof part === 'string' ? out.write(part, at, 'utf8') : part.copy(out, at);
    return out;
  }
}

function write(value: unknown, depth: number, out: Pieces): void {
  if (value === null || typeof value !== 'object') {
    out.add(JSON.stringify(value) ?? 'null');
    return;
  }
  const bytes = keptBytes(value);
  if (bytes !== undefined) {
    out.addBytes(bytes);
    return;
  }
  const base = extended.get(value);
  if (base !== undefined) {
    writeExtended(value as Record<string, unknown>, base, depth, out);
    return;
  }
  if (depth === 0) {
    out.add(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.add('[');
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out.add(',');
      if (unwritable(item)) out.add('null');
      else write(item, depth - 1, out);
    }
    out.add(']');
    return;
  }
  out.add('{');
  writeMembers(value as Record<string, unknown>, Object.keys(value), 0, true, depth - 1, out);
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
function unwritable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** The members `keys[from…]` of an object and its closing brace; `first`: none written before. */
function writeMembers(value: Record<string, unknown>, keys: string[], from: number, first: boolean, depth: number, out: Pieces): void {
  for (let i = from; i < keys.length; i++) {
    const member = value[keys[i]!];
    if (unwritable(member)) continue;
    out.add(`${first ? '' : ','}${JSON.stringify(keys[i])}:`);
    write(member, depth, out);
    first = false;
  }
  out.add('}');
}

/** base's kept bytes without their closing brace, then the members after base's. */
function writeExtended(value: Record<string, unknown>, base: object, depth: number, out: Pieces): void {
  const baseBytes = keptBytes(base)!;
  out.addBytes(baseBytes.subarray(0, baseBytes.length - 1));
  // `{}` (no member written) is 2 bytes.
  writeMembers(value, Object.keys(value), Object.keys(base).length, baseBytes.length === 2, Math.max(depth - 1, 0), out);
}

/**
 * The UTF-8 bytes of JSON.stringify(value), reusing kept objects' bytes. Containers are walked
 * `depth` levels down (the kept objects sit at most that deep in the answers); below,
 * JSON.stringify does the rest.
 */
export function jsonBytesReusing(value: unknown, depth = 4): Buffer {
  const out = new Pieces();
  write(value, depth, out);
  return out.bytes();
}
