import { printable } from './terminal-text.ts';

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
    super(`${printable(file)}${record ? `: record ${printable(record)}` : ''}: ${detail}`);
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
