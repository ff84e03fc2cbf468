/**
 * `GET /api/v1/public/cves/{id}`, the hottest route, answered before Hono when nothing but the
 * record's bytes has to happen: a GET of the exact path, the id in its canonical form and in the
 * served snapshot. The answer is the one the route gives (composeAnswer and completeHeaders,
 * the rule sendBody follows), 304 included, but made synchronously: Hono's middleware chain
 * is a chain of promises, and for a 2.8 KB answer its microtask hops, the router and the
 * awaited response weighed more than the read (`bench:api`: the lookup went from 57–65 % of
 * a constant Hono route's throughput to 83–93 %).
 *
 * Everything else goes to Hono, which answers it as before: another method, a query string, a
 * lower-case or percent-encoded id (which the route reads, then canonicalises), an id not in
 * the snapshot (404), no snapshot (503), a failed read (500, logged). It is used only when
 * the server has no rate limiter: the limiter counts every request, and its shared count is
 * asynchronous (api/ratelimit). The same snapshot lease as retainSnapshot's holds the snapshot
 * for the read.
 */
import type { IncomingMessage } from 'node:http';
import type { SnapshotStore } from '../snapshot/store.ts';
import { parseCveId } from './params.ts';
import { completeHeaders, composeAnswer } from './respond.ts';

/** What the front door reads of a request (HTTP/1 and HTTP/2 requests of node:http both have it). */
export type RequestHead = Pick<IncomingMessage, 'method' | 'url' | 'headers'>;

const RECORD_PATH = /^\/api\/v1\/public\/cves\/(CVE-\d+-\d+)$/;

/** A function giving the record's answer to `incoming`, or undefined when Hono must answer. */
export function recordFrontDoor(store: SnapshotStore): (incoming: RequestHead) => Response | undefined {
  return (incoming) => {
    if (incoming.method !== 'GET') return undefined;
    const match = RECORD_PATH.exec(incoming.url ?? '');
    if (match === null) return undefined;
    const id = match[1]!;
    if (!isCanonicalCveId(id)) return undefined;
    const lease = store.acquire();
    if (lease === null) return undefined;
    try {
      const { records, buildId } = lease.snapshot;
      const doc = records.docOf(id);
      if (doc === undefined) return undefined;
      const answer = composeAnswer(records.bytes(doc), incoming.headers['if-none-match'], { etag: records.etagOf(doc) });
      return new Response(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers: completeHeaders(answer.headers, buildId) });
    } catch {
      // Hono's route reads it again and answers the failure as every route does.
      return undefined;
    } finally {
      lease.release();
    }
  };
}

/** The route's own check (cveIdPathParam's parse), passed with no change to the id. */
function isCanonicalCveId(id: string): boolean {
  try {
    return parseCveId(id) === id;
  } catch {
    return false;
  }
}
