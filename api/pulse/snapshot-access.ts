/**
 * Pages read the snapshot through the same store, leases and query modules as the API
 * (api/queries/*.ts): a page holds its snapshot until it is rendered, like an API request.
 */
import type { SnapshotStore } from '../snapshot/store.ts';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import { PageError } from './page-response.ts';

export async function withSnapshot<T>(store: SnapshotStore, work: (snapshot: ServingSnapshot) => Promise<T>): Promise<T> {
  const lease = store.acquire();
  if (!lease) throw new PageError(503, 'No snapshot yet', 'No snapshot has been published yet: run `vulnintel build` (or `make serve`) and reload.');
  try {
    return await work(lease.snapshot);
  } finally {
    lease.release();
  }
}
