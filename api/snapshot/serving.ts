/**
 * One snapshot as the server serves it: the opened serving database (open.ts), the records
 * read from their file (records.ts), the filter columns as typed arrays (columns.ts), a connection pool
 * (pool.ts), and a reference count. Each request retains the snapshot it started on and
 * releases it when its response is done (a streamed export only when its stream ends); a
 * snapshot replaced by a newer one is closed only once the last of those requests has
 * released it, so a swap never fails a request in flight.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotManifest } from '../../cli/build/manifest.ts';
import { openSnapshot, type OpenOptions, type OpenSnapshot } from './open.ts';
import { CveColumns } from './columns.ts';
import { ConnectionPool } from './pool.ts';
import { RecordStore } from './records.ts';
import { StoredAnswers } from './answers.ts';
import { ResponseCache } from '../http/response-cache.ts';
import { readDocColumns } from '../../cli/build/serving.ts';
import { FlatPostings } from './postings.ts';
import { listEcosystems, listVendors } from '../queries/catalogs.ts';
import { radarIndex } from '../queries/shadow-ai.ts';
import { SHADOW_AI_CATALOG } from '../shadow-ai/catalog.ts';

export interface ServingOptions extends OpenOptions {
  /** DuckDB connections for the API's own queries (default 4). */
  poolSize?: number;
}

export class ServingSnapshot {
  readonly buildId: string;
  readonly manifest: SnapshotManifest;
  readonly dir: string;
  /** The folder of the snapshot's serving files (cli/build/serving.ts). */
  readonly servingDir: string;
  readonly records: RecordStore;
  /** The per-CVE and per-advisory answers the build stored (answers.ts). */
  readonly answers: StoredAnswers;
  /** Filter and sort columns of the CVEs as typed arrays (columns.ts). */
  readonly columns: CveColumns;
  readonly pool: ConnectionPool;
  /** The search postings as flat files: word searches in published order (api/queries/cves-list.ts). */
  readonly postings: FlatPostings;
  /**
   * A connection shared by every request for simple materialised reads (`SnapshotReader` of
   * api/queries/support.ts): DuckDB runs concurrent queries on it one after the other. Never
   * stream from it (another query would end the stream) and never interrupt it.
   */
  readonly connection: DuckDBConnection;
  readonly unreadableTables: ReadonlySet<string>;
  /** Whole answers of this snapshot, bounded (api/http/response-cache.ts). */
  readonly responses = new ResponseCache();
  /** Resolves once the snapshot is closed (after retire and the last release). */
  readonly closed: Promise<void>;

  private readonly opened: OpenSnapshot;
  private readonly memos = new Map<string, Promise<unknown>>();
  private refs = 0;
  private retired = false;
  private isClosed = false;
  private resolveClosed!: () => void;

  private constructor(opened: OpenSnapshot, records: RecordStore, answers: StoredAnswers, columns: CveColumns, pool: ConnectionPool, postings: FlatPostings) {
    this.opened = opened;
    this.buildId = opened.buildId;
    this.manifest = opened.manifest;
    this.dir = opened.dir;
    this.servingDir = opened.servingDir;
    this.connection = opened.connection;
    this.unreadableTables = opened.unreadableTables;
    this.records = records;
    this.answers = answers;
    this.columns = columns;
    this.pool = pool;
    this.postings = postings;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Opens a published snapshot completely (tables, records, pool) before anyone sees it. */
  static async open(dataDir: string, buildId: string, opts: ServingOptions = {}): Promise<ServingSnapshot> {
    const opened = await openSnapshot(dataDir, buildId, opts);
    try {
      const doc = readDocColumns(opened.servingDir);
      const records = RecordStore.open(opened.servingDir, doc);
      const columns = CveColumns.from(doc.columns);
      let answers: StoredAnswers;
      let postings: FlatPostings;
      try {
        answers = StoredAnswers.open(opened.servingDir);
      } catch (err) {
        records.close();
        throw err;
      }
      try {
        postings = FlatPostings.open(opened.servingDir);
      } catch (err) {
        records.close();
        answers.close();
        throw err;
      }
      const pool = await ConnectionPool.create(opened.instance, opts.poolSize ?? 4);
      const snapshot = new ServingSnapshot(opened, records, answers, columns, pool, postings);
      // Warmed in the background, holding the snapshot meanwhile: the replica answers at once,
      // and a first request for one of them waits for the same computation.
      const release = snapshot.retain();
      void warmAggregates(snapshot).finally(release);
      return snapshot;
    } catch (err) {
      opened.close();
      throw err;
    }
  }

  /** A new DuckDB connection of its own, for a long streamed read; the caller closes it. */
  connect(): Promise<DuckDBConnection> {
    return this.opened.instance.connect();
  }

  /** Counts one user; the returned function releases it (once, however often it is called). */
  retain(): () => void {
    if (this.isClosed) throw new Error(`snapshot ${this.buildId} is closed`);
    this.refs++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.refs--;
      this.closeIfUnused();
    };
  }

  /** Marks the snapshot replaced: it closes as soon as no request holds it. */
  retire(): void {
    this.retired = true;
    this.closeIfUnused();
  }

  get inUse(): number {
    return this.refs;
  }

  /**
   * A value derived once per snapshot (the summary body, the trends body, …): the snapshot is
   * immutable, so computing it again could only give the same answer.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let pending = this.memos.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = compute();
      // A failure is not remembered: the next request tries again.
      pending.catch(() => this.memos.delete(key));
      this.memos.set(key, pending);
    }
    return pending;
  }

  private closeIfUnused(): void {
    if (!this.retired || this.refs > 0 || this.isClosed) return;
    this.isClosed = true;
    this.memos.clear();
    this.responses.clear();
    this.pool.close();
    this.records.close();
    this.answers.close();
    this.postings.close();
    this.opened.close();
    this.resolveClosed();
  }
}

/**
 * Computes the per-snapshot aggregates (ecosystems, vendors, the shadow-AI index; memoised on
 * the snapshot) as soon as it opens, so callers rarely pay their 0.1–0.3 s at full scale. A
 * damaged table is not an error here: its endpoint answers 503 naming it, as without warming.
 */
async function warmAggregates(snapshot: ServingSnapshot): Promise<void> {
  await Promise.allSettled([
    listEcosystems(snapshot),
    listVendors(snapshot, undefined, { limit: 1, offset: 0 }),
    radarIndex(snapshot, SHADOW_AI_CATALOG),
  ]);
}
