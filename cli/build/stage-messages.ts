/** Messages between the build and its staging workers. */
import type { RawSourceKey } from '../../lib/raw-layout.ts';
import type { StageResult } from '../parse/source.ts';

export interface StageWorkerInput {
  rawDir: string;
  stageDir: string;
  /** Names this worker's NDJSON part files. */
  part: string;
  keys: RawSourceKey[];
}

export type StageWorkerMessage =
  | { type: 'tick'; records: number }
  | { type: 'done'; key: RawSourceKey; result: StageResult; ms: number }
  | { type: 'finished' }
  | {
      type: 'error';
      message: string;
      file?: string;
      record?: string;
      detail?: string;
      raw: boolean;
      /** A file system error's code, call and path (ENOSPC writing a staged file), so the CLI reports it as one. */
      system?: { code: string; syscall: string; path: string };
    };
