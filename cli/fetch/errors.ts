/**
 * A download that did not produce usable raw data: an HTTP failure after retries, a truncated
 * or malformed body, a listing that makes no sense. The message names the source and the URL
 * or file, so a nightly log line is enough to act on; the last good raw file is still in place.
 */
export class FetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchError';
  }
}

/** True for the error an aborted request or sleep throws (SIGTERM, test abort). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}

/** One line, no stack: what went wrong, for logs and status records. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = (err as { code?: string }).code;
  let text = err.message || err.name;
  if (code && !text.includes(code)) text += ` (${code})`;
  if (cause instanceof Error && cause.message && !text.includes(cause.message)) text += `: ${cause.message}`;
  return text;
}
