/** What every raw-source parser module exports. */
import type { Progress } from '../../lib/log.ts';
import type { RawSourceKey } from '../../lib/raw-layout.ts';
import type { FileSelection } from '../raw/documents.ts';
import type { StageSink } from '../stage/tables.ts';

export interface StageResult {
  /** Raw files (or zip members) read. */
  files: number;
  /** Upstream records read (CVEs, advisories, exploit rows, …). */
  records: number;
}

export interface SourceParser {
  key: RawSourceKey;
  /** The files of its folder it reads; the build reports every other one as skipped. */
  reads: FileSelection;
  /**
   * Reads every raw file of the source's folder and emits staging rows. A missing folder is
   * not an error (0 files). A malformed file or record throws RawFormatError naming both.
   */
  stage(dir: string, sink: StageSink, progress: Progress): Promise<StageResult>;
}
