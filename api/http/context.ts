/**
 * Types shared by the app and every route module: what a request handler can read from its
 * context, and how a route module plugs into the app.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { HttpBindings } from '@hono/node-server';
import type { Logger } from 'pino';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { CallerResolver } from '../ratelimit/caller.ts';
import type { StreamRegistry } from './streams.ts';

export interface ApiVariables {
  /**
   * The snapshot this request reads, retained for it by the app (paths under /api/v1/public).
   * It stays open until the response is done, even if a newer one is published meanwhile.
   */
  snapshot: ServingSnapshot;
  /**
   * Set by a route whose answer was shaped by the execution budget (or anything else than the
   * snapshot and the request): the response cache must not keep it.
   */
  uncacheable?: boolean;
  /** Set by sendBody when it wrote every header of the answer itself (api/http/respond.ts). */
  headersComplete?: boolean;
}

export type ApiEnv = { Bindings: HttpBindings; Variables: ApiVariables };
export type ApiApp = OpenAPIHono<ApiEnv>;

export interface ApiConfig {
  dataDir: string;
  store: SnapshotStore;
  logger: Logger;
  /** Per-query execution budget for counting and phrase matching (DESIGN §6). */
  queryBudgetMs: number;
  /** Rows per export call (contract 8.5: 50,000). */
  exportCap: number;
  /** Open change streams (`/pulse/stream`): per-caller bound, heartbeat, ending on shutdown. */
  streams: StreamRegistry;
  /** Who one caller is, as the rate limiter has it (`--trust-proxy` included): the streams' bound counts by it. */
  callers: CallerResolver;
  /**
   * The service's public base URL when `--public-url` gave one (no trailing slash): what the Atom
   * feed names itself and links to behind a proxy. Absent: the request's own origin.
   */
  publicUrl?: string;
}

/**
 * A group of routes. `register` adds them with `app.openapi(createRoute(…), handler)`, so the
 * OpenAPI document describes them from the same schemas that validate their requests.
 */
export interface RouteModule {
  name: string;
  register(app: ApiApp, config: ApiConfig): void;
}
