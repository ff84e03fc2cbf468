/**
 * "Am I affected?" (issue 12): `GET /packages/{ecosystem}/{name}` (optional `version`),
 * `GET /packages?purl=…`, `GET /packages/batch?purls=…` (≤ 100) and `GET /cves/batch?ids=…`
 * (≤ 100). Registered before the `/cves` module: `/cves/batch` would otherwise be read as
 * `/cves/{id}`; `/packages/batch` is a static path, registered before `/packages/{…}`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ApiApp, ApiEnv, RouteModule } from '../http/context.ts';
import { ApiError, invalidParameter } from '../http/errors.ts';
import { anyCase, CVE_ID_PATTERN, NOT_BLANK_PATTERN, parseCveId, queryParam } from '../http/params.ts';
import { SUPPORTED_PURL_TYPES } from '../../lib/packages/purl.ts';
import { SUPPORTED_ECOSYSTEMS } from '../../lib/versions/ecosystems.ts';
import { cacheKey } from '../http/response-cache.ts';
import { asRouteResponse, etagOf, sendBody } from '../http/respond.ts';
import { jsonBytesReusing } from '../../lib/json-reuse.ts';
import {
  answerBatch,
  answerPackage,
  answerPurl,
  askedEcosystem,
  MAX_BATCH,
  PackageQuestionError,
  packageIndexOf,
  splitPurls,
} from '../queries/packages.ts';
import { errorResponses } from './cves-schemas.ts';
import { CveBatchSchema, PackageAnswerSchema, PackageBatchSchema, PurlAnswerSchema } from './packages-schemas.ts';
import { PUBLIC_BASE, readingTables } from './resource-common.ts';

const TAG = 'Packages';

/** Runs a package question; its refusals become 400 INVALID_PARAMETER naming the parameter. */
async function asking<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await readingTables(work);
  } catch (err) {
    if (err instanceof PackageQuestionError) throw new ApiError('INVALID_PARAMETER', err.message, { parameter: err.parameter, ...err.extra });
    throw err;
  }
}

const rawText = (description: string, example?: string) => queryParam((raw) => raw, { description, ...(example ? { example } : {}) });

/** A query parameter the operation cannot answer without: declared required in the document. */
const requiredText = (description: string, example: string, pattern = NOT_BLANK_PATTERN) => z.string().openapi({ type: 'string', description, example, pattern });

/**
 * `ids` as parseCveIds reads it: comma-separated CVE ids, white space around each and empty
 * items ignored, at least one id. (The count of distinct ids, at most MAX_BATCH, is the one
 * rule a pattern cannot say.)
 */
const CVE_ID_ITEM = `\\s*${CVE_ID_PATTERN.slice(1, -1)}\\s*`;
const CVE_IDS_PATTERN = `^(?:\\s*,)*${CVE_ID_ITEM}(?:,(?:${CVE_ID_ITEM}|\\s*))*$`;

/**
 * The ecosystems askedEcosystem takes: a supported one in any case, white space around it,
 * then optionally `:` and a release (`Debian:12`). Any other is refused with 400; without the
 * pattern the document called every string valid.
 */
const ECOSYSTEM_PATTERN = `^\\s*(?:${SUPPORTED_ECOSYSTEMS.map(anyCase).join('|')})\\s*(?::[\\s\\S]*)?$`;

const byNameRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/packages/{ecosystem}/{name}`,
  tags: [TAG],
  summary: 'Is this package version affected? (or: every advisory of the package)',
  description:
    'The CVEs whose OSV/GHSA ranges hold `version`, each with the matched ranges and why, ordered by service risk (then KEV, then EPSS), with the smallest fixed version that clears every match (or a plain statement that none does). Without `version`: every advisory of the package with its ranges. Names containing `/` (npm scopes, Go modules, Packagist) are sent percent-encoded (`%2F`). An unparseable version is a 400, never "not affected".',
  request: {
    params: z.object({
      ecosystem: z.string().openapi({ param: { name: 'ecosystem', in: 'path' }, pattern: ECOSYSTEM_PATTERN, description: 'As OSV spells it, any case: npm, PyPI, Maven, Go, crates.io, RubyGems, NuGet, Packagist, Debian, Ubuntu, Alpine, Red Hat, Rocky Linux, AlmaLinux, openSUSE, SUSE, … A distribution may carry its release (`Debian:12`); without one every release is searched.', example: 'PyPI' }),
      name: z.string().openapi({ param: { name: 'name', in: 'path' }, pattern: NOT_BLANK_PATTERN, description: 'Package name as the ecosystem spells it (Maven `group:artifact`; `/` encoded as `%2F`). Case-insensitive; PyPI names compared PEP 503-normalised.', example: 'mlflow' }),
    }),
    query: z.object({ version: rawText('The version to judge, in the ecosystem\'s own syntax.', '2.18.0') }),
  },
  responses: {
    200: { description: 'The judgement (with `version`) or the advisories (without).', content: { 'application/json': { schema: PackageAnswerSchema } } },
    ...errorResponses(400, 503),
  },
});

const purlRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/packages`,
  tags: [TAG],
  summary: 'Is the package of this Package URL affected?',
  description: `As \`/packages/{ecosystem}/{name}\`, the package named by a Package URL (purl types ${SUPPORTED_PURL_TYPES.join(', ')}; a deb/apk \`distro\` qualifier picks the release). The purl's version is judged; without one, every advisory is listed.`,
  request: { query: z.object({ purl: requiredText('A Package URL.', 'pkg:deb/debian/openssl@3.0.11-1~deb12u1?distro=debian-12') }) },
  responses: {
    200: { description: 'The judgement or the advisories, with the purl.', content: { 'application/json': { schema: PurlAnswerSchema } } },
    ...errorResponses(400, 503),
  },
});

const packageBatchRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/packages/batch`,
  tags: [TAG],
  summary: `Up to ${MAX_BATCH} Package URLs in one round trip`,
  description: `\`purls\`: Package URLs separated by commas; a separator is a comma followed by \`pkg:\`, so a comma inside a purl (a \`checksums\` qualifier, or \`%2C\`) stays in it. At most ${MAX_BATCH} distinct purls; duplicates are answered once, where they first appear; answers come in the order asked. A purl that cannot be answered (malformed, unsupported type, unparseable version) carries \`error\` in its place; the others are answered.`,
  request: { query: z.object({ purls: requiredText('Comma-separated Package URLs.', 'pkg:pypi/mlflow@2.18.0,pkg:npm/body-parser@1.20.2') }) },
  responses: {
    200: { description: 'One answer per distinct purl, in the order asked.', content: { 'application/json': { schema: PackageBatchSchema } } },
    ...errorResponses(400, 503),
  },
});

const cveBatchRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/cves/batch`,
  tags: ['CVEs'],
  summary: `Up to ${MAX_BATCH} CVE records in one round trip`,
  description: `\`ids\`: comma-separated CVE ids, any case. At most ${MAX_BATCH} distinct ids; duplicates (in any case) are answered once, where they first appear. Records come in the order asked; ids the snapshot does not hold are listed in \`unknown\`. A malformed id is a 400 naming it.`,
  request: { query: z.object({ ids: requiredText('Comma-separated CVE ids, any case.', 'CVE-2024-3400,CVE-2023-4966', CVE_IDS_PATTERN) }) },
  responses: {
    200: { description: 'The records in the order asked, unknown ids apart.', content: { 'application/json': { schema: CveBatchSchema } } },
    ...errorResponses(400, 503),
  },
});

function required(value: string | undefined, parameter: string): string {
  if (value === undefined || value.trim() === '') throw invalidParameter(parameter, `${parameter}: required`);
  return value;
}

/** Distinct upper-cased CVE ids in the order first asked; 400 for a malformed one or too many. */
export function parseCveIds(raw: string): string[] {
  const ids: string[] = [];
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (text === '') continue;
    let id: string;
    try {
      id = parseCveId(text);
    } catch {
      throw new ApiError('INVALID_PARAMETER', `ids: "${text}" is not a CVE identifier such as CVE-2024-3400`, { parameter: 'ids', value: text });
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) throw invalidParameter('ids', 'ids: no CVE id given');
  if (ids.length > MAX_BATCH) throw invalidParameter('ids', `ids: at most ${MAX_BATCH} distinct ids per call, got ${ids.length}`);
  return ids;
}

function register(app: ApiApp): void {
  app.openapi(cveBatchRoute, async (c) => {
    const ids = parseCveIds(required(c.req.valid('query').ids, 'ids'));
    const snapshot = c.get('snapshot');
    const parts: Uint8Array[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const doc = snapshot.records.docOf(id);
      if (doc === undefined) unknown.push(id);
      else parts.push(snapshot.records.bytes(doc));
    }
    // The records are sent as stored (no re-serialisation), joined into one body.
    const chunks: Uint8Array[] = [Buffer.from(`{"requested":${ids.length},"cves":[`)];
    parts.forEach((p, i) => chunks.push(...(i > 0 ? [Buffer.from(','), p] : [p])));
    chunks.push(Buffer.from(`],"unknown":${JSON.stringify(unknown)}}`));
    return asRouteResponse(sendBody(c, Buffer.concat(chunks)));
  });

  app.openapi(packageBatchRoute, async (c) => {
    const purls = splitPurls(required(c.req.valid('query').purls, 'purls'));
    if (purls.length === 0) throw invalidParameter('purls', 'purls: no Package URL given');
    if (purls.length > MAX_BATCH) throw invalidParameter('purls', `purls: at most ${MAX_BATCH} distinct Package URLs per call, got ${purls.length}`);
    const results = await asking(async () => answerBatch(await packageIndexOf(c.get('snapshot')), purls));
    return asRouteResponse(sendPackageAnswer(c, { requested: purls.length, results }));
  });

  app.openapi(purlRoute, async (c) => {
    const purl = required(c.req.valid('query').purl, 'purl');
    const answer = await asking(async () => answerPurl(await packageIndexOf(c.get('snapshot')), purl));
    return asRouteResponse(sendPackageAnswer(c, answer));
  });

  app.openapi(byNameRoute, async (c) => {
    const { ecosystem, name } = c.req.valid('param');
    const { version } = c.req.valid('query');
    const answer = await asking(async () => answerPackage(await packageIndexOf(c.get('snapshot')), askedEcosystem(ecosystem), name, version ?? null));
    return asRouteResponse(sendPackageAnswer(c, answer));
  });
}

/**
 * A package answer (up to megabytes for a batch): serialised reusing the findings the index
 * keeps as JSON (lib/json-reuse.ts), with an ETag naming the snapshot and the normalised
 * question, since the answer is a function of both, instead of a hash of the whole body.
 */
function sendPackageAnswer(c: Context<ApiEnv>, answer: unknown): Response {
  return sendBody(c, jsonBytesReusing(answer), { etag: etagOf(`${c.get('snapshot').buildId}\n${cacheKey(c.req.url)}`) });
}

export const packagesRoutes: RouteModule = { name: 'packages', register };
