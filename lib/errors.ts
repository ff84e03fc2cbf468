import { printable } from './terminal-text.ts';

/**
 * The most of one text (a record's name, a value quoted, a detail) a message shows: a hostile
 * or broken file can make any of them megabytes long (a 30 MB cveID was printed whole, as one
 * "line" of the build's refusal).
 */
const SHOWN_MAX = 300;

/** `text`, cut to SHOWN_MAX characters with its length said when longer. */
export function shortened(text: string, max = SHOWN_MAX): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)` : text;
}

/**
 * A value of a raw file as a message quotes it: its JSON, cut short (shortened). Never throws:
 * JSON.stringify of a value nested some thousands deep (`"cveID": [[[[…]]]]`, valid JSON) overflows
 * the call stack, and the build stopped with a stack trace naming no file where it should have
 * named the record. A number JSON cannot write (1e999 is read as Infinity) is shown as itself,
 * not as JSON's null.
 */
export function quoted(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return Array.isArray(value) ? 'an array nested too deeply to show' : 'an object nested too deeply to show';
  }
  return shortened(json ?? String(value));
}

/**
 * A raw upstream file (or one record in it) that cannot be read. The build stops on it with a
 * message naming the file and the record, and nothing already published is touched.
 */
export class RawFormatError extends Error {
  readonly file: string;
  readonly record: string | undefined;
  readonly detail: string;

  constructor(file: string, record: string | undefined, detail: string) {
    // The file's name and the record's are shown escaped: a name holding a line break or an
    // escape sequence must not write a line of its own ("✓ publish: …") or drive the terminal.
    // Each part cut short (shortened): the record's name and the detail may quote the file.
    super(`${printable(file)}${record ? `: record ${printable(shortened(record))}` : ''}: ${shortened(detail, 3 * SHOWN_MAX)}`);
    this.name = 'RawFormatError';
    this.file = file;
    this.record = record;
    this.detail = detail;
  }
}

/** A user-facing CLI error: printed without a stack, exit code 1 (or `exitCode`). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/**
 * The first line of an error's message: DuckDB follows its own with a "LINE 1: <statement>"
 * context that quotes our SQL back over further lines, nothing the user gave, for a one-line
 * CLI message.
 */
export function firstLineOf(err: unknown): string {
  return ((err as Error).message.split('\n')[0] ?? '').trim();
}

/**
 * `err` naming `path` when it is a file system error that names no file: Node's write and
 * fsync errors do not ("ENOSPC: no space left on device, write"), so a full disk was reported
 * without saying which file, and the CLI, which prints a file system error naming its path as
 * one line, printed a stack. Named as Node names an open's. Returns `err`.
 */
export function namingPath(err: unknown, path: string): unknown {
  const failure = err as NodeJS.ErrnoException;
  if (failure instanceof Error && typeof failure.code === 'string' && failure.path === undefined) {
    failure.path = path;
    failure.message = `${failure.message} '${path}'`;
  }
  return failure;
}

/**
 * What makes `err` a file system refusal (no permission, the disk full, a file where a folder
 * goes): its code, the call and the path, as Node gives them; null for anything else. The CLI
 * shows such an error as its one line (it names the path and the call), never a stack; a
 * staging worker passes these on so the build's thread can rebuild it as one.
 */
export function fileSystemFacts(err: unknown): { code: string; syscall: string; path: string } | null {
  const { code, syscall, path } = (err ?? {}) as NodeJS.ErrnoException;
  return err instanceof Error && typeof code === 'string' && typeof syscall === 'string' && typeof path === 'string' ? { code, syscall, path } : null;
}
