/**
 * Every route module of the API, in registration order. A module adds its routes with
 * `app.openapi(createRoute(…), handler)` (see RouteModule in api/http/context.ts); to add
 * one, import it and append it to the list. Order matters only where paths overlap: a module
 * with a static path under `/cves/` (e.g. `/cves/summary`) must come before the module that
 * registers `/cves/{id}` — `cves` registers its own static paths first.
 */
import type { RouteModule } from '../http/context.ts';
import { cvesRoutes } from './cves.ts';
import { packagesRoutes } from './packages.ts';
import { relatedRoutes } from './related.ts';
import { referencesRoutes } from './references.ts';
import { enrichmentRoutes } from './enrichment.ts';
import { advisoriesRoutes } from './advisories.ts';
import { catalogsRoutes } from './catalogs.ts';
import { kevRoutes } from './kev.ts';
import { shadowAiRoutes } from './shadow-ai.ts';
import { changesRoutes } from './changes.ts';
import { pulseFeedRoutes } from './pulse-feeds.ts';

export const ROUTE_MODULES: readonly RouteModule[] = [
  // Before `cves`: it registers /cves/batch, which /cves/{id} would otherwise claim.
  packagesRoutes,
  cvesRoutes,
  relatedRoutes,
  referencesRoutes,
  enrichmentRoutes,
  advisoriesRoutes,
  catalogsRoutes,
  kevRoutes,
  shadowAiRoutes,
  changesRoutes,
  pulseFeedRoutes,
];
