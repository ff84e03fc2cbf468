/**
 * The least pace a response body must keep. The client's timeouts bound the connection, the
 * headers and every gap between body chunks, but a host that sends one byte every two seconds
 * never leaves a gap long enough: without a pace the job hung on that one source, the sources
 * after it never ran, and the fetch lock stayed held. So every window of the timeout
 * (`http.timeoutSeconds`, 25 s), counted from the response headers, must bring at least
 * MIN_BODY_BYTES of the body (64 KiB in 25 s: about 2.6 KB/s), or the answer is dropped as a
 * network failure, retried like a reset (a download resumes where it stopped).
 */
import { Transform, pipeline, type Readable } from 'node:stream';

export const MIN_BODY_BYTES = 64 * 1024;

export class SlowBodyError extends Error {
  readonly code = 'BODY_TOO_SLOW';
  constructor(received: number, windowMs: number, minBytes: number) {
    super(`body too slow: ${received} bytes in ${windowMs / 1000} s (at least ${minBytes} required)`);
    this.name = 'SlowBodyError';
  }
}

/**
 * `body` as read through a counter that destroys it with a SlowBodyError when a window of
 * `windowMs` brings fewer than `minBytes` and the body has not ended. A window that ends with
 * the reader holding the body back (its buffer full) is not held against the host.
 */
export function pacedBody(body: Readable, windowMs: number, minBytes = MIN_BODY_BYTES): Readable {
  let inWindow = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      inWindow += chunk.length;
      callback(null, chunk);
    },
  });
  const timer = setInterval(() => {
    // A reader that stops reading (a paused download writing to a slow disk) fills the buffer.
    const heldBack = counter.readableLength >= counter.readableHighWaterMark;
    if (!heldBack && inWindow < minBytes) {
      clearInterval(timer);
      body.destroy(new SlowBodyError(inWindow, windowMs, minBytes));
    }
    inWindow = 0;
  }, windowMs);
  // Never what keeps the process alive.
  timer.unref();
  // pipeline: an error of the body (reset, timeout, too slow) reaches the reader, and a reader
  // that gives up (destroy) releases the connection.
  pipeline(body, counter, () => clearInterval(timer));
  return counter;
}
