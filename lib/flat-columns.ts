/**
 * A file of flat typed arrays (DESIGN §8.1: "filter columns … as flat typed arrays"): written once
 * by the build, read by a replica with one read and no parsing, each column a view on the file's
 * bytes. Layout: a little-endian uint32 giving the length of a JSON header, the header
 * (`{ rows, columns: [{ name, type, offset, length }] }`), then each column's bytes at its
 * offset, aligned to 8 bytes so every typed array can view the buffer in place.
 *
 * Why not Arrow IPC or Parquet: a replica needs a dozen fixed-width arrays of one length, whole,
 * in memory; this reads them in milliseconds with no library and no copy, where an Arrow reader
 * would add a dependency and a decode step for the same arrays.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const TYPES = {
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  int32: Int32Array,
  float64: Float64Array,
} as const;

export type FlatColumnType = keyof typeof TYPES;
export type FlatColumn = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

interface HeaderColumn {
  name: string;
  type: FlatColumnType;
  /** Byte offset from the start of the file. */
  offset: number;
  /** Elements. */
  length: number;
}

function typeOf(column: FlatColumn): FlatColumnType {
  for (const [name, ctor] of Object.entries(TYPES)) if (column instanceof ctor) return name as FlatColumnType;
  throw new Error('unsupported column type');
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

export function writeFlatColumns(path: string, columns: Record<string, FlatColumn>): void {
  const names = Object.keys(columns);
  // The header's own length depends on the offsets it lists: lay out with room to spare.
  const draft = (base: number): HeaderColumn[] => {
    let offset = base;
    return names.map((name) => {
      const column = columns[name]!;
      const entry = { name, type: typeOf(column), offset, length: column.length };
      offset = align8(offset + column.byteLength);
      return entry;
    });
  };
  let base = 0;
  let header = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    header = JSON.stringify({ columns: draft(base) });
    const needed = align8(4 + Buffer.byteLength(header));
    if (needed <= base) break;
    base = needed + 64;
  }
  const layout = draft(base);
  header = JSON.stringify({ columns: layout });
  const last = layout.at(-1);
  const size = last ? align8(last.offset + columns[last.name]!.byteLength) : base;
  const file = Buffer.alloc(size);
  file.writeUInt32LE(Buffer.byteLength(header), 0);
  file.write(header, 4, 'utf8');
  for (const entry of layout) {
    const column = columns[entry.name]!;
    file.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), entry.offset);
  }
  writeFileSync(path, file);
}

/** Reads every column of a file written by writeFlatColumns; the arrays view one buffer. */
export function readFlatColumns(path: string): Record<string, FlatColumn> {
  let file = readFileSync(path);
  // Typed arrays need aligned views: a small file may sit at any offset of Node's buffer pool.
  if (file.byteOffset % 8 !== 0) {
    const copy = new Uint8Array(file.byteLength);
    copy.set(file);
    file = Buffer.from(copy.buffer);
  }
  const headerLength = file.readUInt32LE(0);
  const header = JSON.parse(file.toString('utf8', 4, 4 + headerLength)) as { columns: HeaderColumn[] };
  const out: Record<string, FlatColumn> = {};
  for (const entry of header.columns) {
    const ctor = TYPES[entry.type];
    if (!ctor) throw new Error(`${path}: column ${entry.name} has unknown type ${entry.type}`);
    if (entry.offset + entry.length * ctor.BYTES_PER_ELEMENT > file.byteLength) throw new Error(`${path}: column ${entry.name} runs past the end of the file`);
    out[entry.name] = new ctor(file.buffer, file.byteOffset + entry.offset, entry.length);
  }
  return out;
}
