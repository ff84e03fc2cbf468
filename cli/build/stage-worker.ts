/**
 * A staging worker thread: runs some of the source parsers and writes their rows to its own
 * NDJSON part files. The build starts two, so the two cores parse at once (parsing is CPU:
 * JSON.parse and row shaping).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { fileSystemFacts, RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { RAW_SOURCES } from '../../lib/raw-layout.ts';
import { PARSERS } from '../parse/index.ts';
import { NdjsonStageWriter } from '../stage/writer.ts';
import type { StageWorkerInput, StageWorkerMessage } from './stage-messages.ts';

const input = workerData as StageWorkerInput;
const post = (m: StageWorkerMessage) => parentPort!.postMessage(m);

/** Ticks are batched: one message per 2,000 records keeps the channel quiet. */
function tickingProgress(): Progress & { flush(): void } {
  let pending = 0;
  return {
    tick(n = 1) {
      pending += n;
      if (pending >= 2000) {
        post({ type: 'tick', records: pending });
        pending = 0;
      }
    },
    setTotal() {},
    stop() {},
    flush() {
      if (pending) post({ type: 'tick', records: pending });
      pending = 0;
    },
  };
}

const writer = new NdjsonStageWriter(input.stageDir, input.part);
try {
  for (const key of input.keys) {
    const parser = PARSERS.find((p) => p.key === key);
    if (!parser) throw new Error(`no parser for ${key}`);
    const started = performance.now();
    const bar = tickingProgress();
    const dir = join(input.rawDir, RAW_SOURCES[parser.key]);
    writer.readingSource(dir);
    const result = await parser.stage(dir, writer, bar);
    bar.flush();
    post({ type: 'done', key, result, ms: performance.now() - started });
  }
  writer.close();
  post({ type: 'finished' });
} catch (err) {
  // Its files closed, what they hold no longer matters; a second failure (the same full disk)
  // must not hide the first.
  try {
    writer.close();
  } catch {}
  const raw = err instanceof RawFormatError ? err : null;
  post({
    type: 'error',
    message: (err as Error).message,
    file: raw?.file,
    record: raw?.record,
    detail: raw?.detail,
    raw: raw !== null,
    system: fileSystemFacts(err) ?? undefined,
  });
}
