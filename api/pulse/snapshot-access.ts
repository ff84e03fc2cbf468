/**
 * Pages read the snapshot through the same store, leases and query modules as the API
 * (api/queries/*.ts): a page holds its snapshot until it is rendered, like an API request.
 */
import type { Context } from 'hono';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import { noSnapshotMessage } from '../http/errors.ts';
import { PageError } from './page-response.ts';

export async function withSnapshot<T>(store: SnapshotStore, work: (snapshot: ServingSnapshot) => Promise<T>, c: Context): Promise<T> {
  const lease = store.acquire();
  if (!lease) {
    const failure = store.openFailure;
    if (failure) throw new PageError(503, 'Snapshot unavailable', noSnapshotMessage(failure));
    throw new PageError(503, 'No snapshot yet', 'No snapshot has been published yet: run `vulnintel build` (or `make serve`) and reload.');
  }
  // The answer's X-Snapshot (standardHeaders) names the snapshot it was read from: the one
  // served when it is sent may be newer, swapped in while the page was rendered.
  c.set('snapshot', lease.snapshot);
  try {
    return await work(lease.snapshot);
  } finally {
    lease.release();
  }
}
