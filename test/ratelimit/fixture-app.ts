/**
 * A stand-in for the real API server while it is being written: a Hono app with the real
 * middleware order (CORS first, then the rate limiter) and a few routes, one per tier plus
 * unlimited ones. Used by the tests and by bench/ratelimit.ts.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { RATE_LIMIT_EXPOSED_HEADERS, type RateLimiter } from '../../api/ratelimit/index.ts';

/** A body of a realistic size for one CVE record, so the limiter's share is not overstated. */
const RECORD = { cve_id: 'CVE-2024-0001', severity: 'HIGH', service_score: 8.1, summary: 'x'.repeat(900) };

export function buildFixtureApp(limiter: RateLimiter | undefined): Hono {
  const app = new Hono();
  app.use('*', cors({ exposeHeaders: [...RATE_LIMIT_EXPOSED_HEADERS] }));
  if (limiter !== undefined) app.use('*', limiter.middleware);
  app.get('/api/v1/public/cves', (c) => c.json({ cves: [RECORD], total: 1 }));
  app.get('/api/v1/public/cves/:id', (c) => c.json({ ...RECORD, cve_id: c.req.param('id') }));
  app.get('/api/v1/public/cwes', (c) => c.json({ cwes: [] }));
  app.get('/api/v1/public/other', (c) => c.json({ other: true }));
  app.get('/api/v1/openapi.json', (c) => c.json({ openapi: '3.1.0' }));
  app.get('/health', (c) => c.json({ rateLimit: limiter?.health() ?? null }));
  return app;
}
