/**
 * The snapshot the server answers from, swapped without a restart (DESIGN §2, §6): when
 * `<data>/CURRENT` names a new build, the new snapshot is opened completely in the background,
 * then replaces the served one in a single assignment; requests already running keep the one
 * they retained, which closes when the last of them finishes (serving.ts). A snapshot that
 * fails to open is logged and retried later; the served one stays meanwhile. Before anything
 * is published there is no snapshot, and data requests get 503 NO_SNAPSHOT.
 */
import type { Logger } from 'pino';
import { readCurrentBuildId } from '../../lib/snapshot-layout.ts';
import { ServingSnapshot, type ServingOptions } from './serving.ts';
import { watchCurrent, type CurrentWatcher } from './watch.ts';

export interface SnapshotStoreOptions {
  dataDir: string;
  logger: Logger;
  /** Period of the fallback `stat` of CURRENT (default 2 s). */
  watchIntervalMs?: number;
  /** A build that failed to open is tried again after this long (default 30 s). */
  retryFailedMs?: number;
  open?: ServingOptions;
}

/** CURRENT names a snapshot this replica could not open (or could not be read itself). */
export interface OpenFailure {
  /** The build CURRENT names; null when CURRENT itself could not be read as a build id. */
  buildId: string | null;
  /** Why, paths relative to the data folder (the full message is in the log). */
  error: string;
  /** When it first failed (ISO 8601); tried again every `retryFailedMs` meanwhile. */
  since: string;
}

export interface SnapshotLease {
  snapshot: ServingSnapshot;
  /** Ends this use of the snapshot; safe to call more than once. */
  release: () => void;
}

export class SnapshotStore {
  private served: ServingSnapshot | null = null;
  private watcher: CurrentWatcher | undefined;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private readonly failed = new Map<string, number>();
  private readonly swapListeners: ((snapshot: ServingSnapshot) => void)[] = [];
  private stopped = false;
  private failure: OpenFailure | null = null;

  constructor(private readonly opts: SnapshotStoreOptions) {}

  /** Loads the published snapshot, if any, then starts watching for new ones. */
  async start(): Promise<void> {
    await this.sync();
    this.watcher = watchCurrent(
      this.opts.dataDir,
      () => void this.sync(),
      this.opts.watchIntervalMs ?? 2000,
      () => {
        if (this.failed.size > 0) void this.sync();
      },
    );
  }

  /** The snapshot new requests get, or null before any is published. */
  get current(): ServingSnapshot | null {
    return this.served;
  }

  /**
   * Why the snapshot CURRENT names is not the one served, while it is not (null once it is, or
   * once CURRENT names the served one again): the served snapshot, if any, is an older one.
   */
  get openFailure(): OpenFailure | null {
    return this.failure;
  }

  private noteFailure(buildId: string | null, err: unknown): void {
    const error = (err as Error).message.replaceAll(`${this.opts.dataDir.replace(/\/+$/, '')}/`, '');
    const since = this.failure?.buildId === buildId ? this.failure.since : new Date().toISOString();
    this.failure = { buildId, error, since };
  }

  /** Retains the current snapshot for one request; null when there is none. */
  acquire(): SnapshotLease | null {
    const snapshot = this.served;
    if (!snapshot) return null;
    return { snapshot, release: snapshot.retain() };
  }

  /** Calls `listener` after each swap; returns the function that stops calling it. */
  onSwap(listener: (snapshot: ServingSnapshot) => void): () => void {
    this.swapListeners.push(listener);
    return () => {
      const i = this.swapListeners.indexOf(listener);
      if (i !== -1) this.swapListeners.splice(i, 1);
    };
  }

  /**
   * Brings the served snapshot in line with CURRENT. Calls made while a sync runs are folded
   * into one more pass after it, so a burst of publications opens only the last one.
   */
  sync(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          await this.syncOnce();
        } while (this.syncAgain && !this.stopped);
      } finally {
        this.syncing = null;
      }
    })();
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    let buildId: string | null;
    try {
      buildId = await readCurrentBuildId(this.opts.dataDir);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, this.served ? 'cannot read CURRENT; keeping the served snapshot' : 'cannot read CURRENT; no snapshot served');
      this.noteFailure(null, err);
      return;
    }
    // CURRENT removed or emptied: keep serving what we have rather than going dark.
    if (buildId === null || buildId === this.served?.buildId) this.failure = null;
    if (buildId === null || buildId === this.served?.buildId || this.stopped) return;
    const failedAt = this.failed.get(buildId);
    if (failedAt !== undefined && Date.now() - failedAt < (this.opts.retryFailedMs ?? 30_000)) return;

    const started = performance.now();
    let next: ServingSnapshot;
    try {
      next = await ServingSnapshot.open(this.opts.dataDir, buildId, this.opts.open);
    } catch (err) {
      this.failed.set(buildId, Date.now());
      this.noteFailure(buildId, err);
      this.opts.logger.error(
        { buildId, served: this.served?.buildId ?? null, err: (err as Error).message },
        this.served ? 'snapshot failed to open; keeping the served one' : 'snapshot failed to open; no snapshot served until it opens',
      );
      return;
    }
    this.failed.delete(buildId);
    if (this.stopped) {
      next.retire();
      return;
    }
    const previous = this.served;
    this.served = next;
    this.failure = null;
    previous?.retire();
    this.opts.logger.info(
      { buildId, previous: previous?.buildId ?? null, cves: next.records.size, openMs: Math.round(performance.now() - started) },
      'snapshot now served',
    );
    for (const listener of [...this.swapListeners]) listener(next);
  }

  /** Stops watching and closes the served snapshot once its last request is done. */
  async close(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    await this.syncing?.catch(() => undefined);
    const last = this.served;
    this.served = null;
    if (last) {
      last.retire();
      await last.closed;
    }
  }
}
