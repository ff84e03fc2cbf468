/**
 * For the API server tests: a real server (startServer on 127.0.0.1, port 0) serving the
 * bundled sample snapshot (data/sample, built once per test process), plus an independent
 * reader of the same snapshot through DuckDB views, to compute what the answers must be.
 *
 * Every answer `get` and `json` receive is checked against the OpenAPI document the server
 * serves (test/helpers/openapi-validator.ts): an undeclared status, a missing required header
 * or a body off its schema fails the test that received it, so the document cannot drift from
 * the server unnoticed.
 */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { pino } from 'pino';
import { startServer, type RunningServer, type ServerOptions } from '../../api/server.ts';
import { publishSnapshot } from '../../cli/build/publish.ts';
import { openSnapshotViews } from '../../cli/commands/sql.ts';
import { snapshotsDir } from '../../lib/snapshot-layout.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { assertMatchesDocument, OpenApiValidator } from '../helpers/openapi-validator.ts';

export const silentLogger = pino({ level: 'silent' });

export interface SampleServer {
  server: RunningServer;
  base: string;
  dataDir: string;
  buildId: string;
  /** fetch of `base + path`, the answer checked against the served OpenAPI document. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** The served document's validator (fetched once). */
  validator(): Promise<OpenApiValidator>;
  json<T = Record<string, unknown>>(path: string): Promise<{ status: number; body: T; res: Response }>;
}

/** A server over the sample snapshot's data folder (shared, read-only: do not publish into it). */
export async function startSampleServer(opts: Partial<ServerOptions> = {}): Promise<SampleServer> {
  const { dataDir, result } = await buildCorpus();
  return startOn(dataDir, result.buildId, opts);
}

export async function startOn(dataDir: string, buildId: string, opts: Partial<ServerOptions> = {}): Promise<SampleServer> {
  const server = await startServer({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    rateLimit: false,
    logger: silentLogger,
    watchIntervalMs: 200,
    snapshot: { threads: 1, memoryLimit: '512MB', poolSize: 2 },
    ...opts,
  });
  const validator = documentValidator(server.url);
  // Fetched now, so that a test's first request is the request it times (e.g. one in flight at close()).
  await validator();
  const get = async (path: string, init?: RequestInit) => {
    const url = `${server.url}${path}`;
    const res = await fetch(url, init);
    await checkAnswer(await validator(), init?.method ?? 'GET', url, res);
    return res;
  };
  return {
    server,
    base: server.url,
    dataDir,
    buildId,
    get,
    validator,
    async json<T>(path: string) {
      const res = await get(path);
      return { status: res.status, body: (await res.json()) as T, res };
    },
  };
}

/** The validator of the document served at `base`, fetched on first use. */
export function documentValidator(base: string): () => Promise<OpenApiValidator> {
  let validator: Promise<OpenApiValidator> | undefined;
  return () =>
    (validator ??= fetch(`${base}/api/v1/openapi.json`)
      .then((r) => r.json() as Promise<Record<string, unknown>>)
      .then((doc) => new OpenApiValidator(doc)));
}

/** Streams are left unread (a test may read one partly, or not at all): their headers are checked. */
const STREAMED = /^(application\/x-ndjson|text\/event-stream)/;

/** Throws when `res` does not match the document; reads a copy of the body, never the body. */
export async function checkAnswer(validator: OpenApiValidator, method: string, url: string, res: Response): Promise<void> {
  const streamed = STREAMED.test(res.headers.get('content-type') ?? '');
  const body = streamed || method.toUpperCase() === 'HEAD' ? undefined : await res.clone().text();
  assertMatchesDocument(validator, { method, url, status: res.status, headers: res.headers, body });
}

/** An empty data folder of its own (tests that publish). */
export function emptyDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'vulnintel-api-test-'));
}

/**
 * Publishes a copy of the sample snapshot into `dataDir` under `buildId`, exactly as a build
 * does (complete folder renamed into snapshots/, then CURRENT replaced by rename).
 */
export async function publishSampleCopy(dataDir: string, buildId: string): Promise<void> {
  const { dataDir: sampleDir, result } = await buildCorpus();
  const staging = await mkdtemp(join(tmpdir(), 'vulnintel-api-stage-'));
  const built = join(staging, buildId);
  await cp(join(snapshotsDir(sampleDir), result.buildId), built, { recursive: true });
  const manifestPath = join(built, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { build_id: string };
  manifest.build_id = buildId;
  await writeFile(manifestPath, JSON.stringify(manifest));
  await publishSnapshot(dataDir, built, buildId);
}

/** The sample snapshot read independently of the server: SQL over its Parquet files. */
export interface SampleTruth {
  connection: DuckDBConnection;
  rows<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  column<T = unknown>(sql: string): Promise<T[]>;
  close(): void;
}

export async function openSampleTruth(): Promise<SampleTruth> {
  const { dataDir } = await buildCorpus();
  const { instance, connection } = (await openSnapshotViews(dataDir)) as { instance: DuckDBInstance; connection: DuckDBConnection };
  return {
    connection,
    async rows<T>(sql: string) {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson() as unknown as T[];
    },
    async column<T>(sql: string) {
      return (await connection.runAndReadAll(sql)).getRowsJson().map((r) => r[0]) as unknown as T[];
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** The ids of a list response, in order. */
export function ids(body: { cves?: { cve_id: string }[] }): string[] {
  return (body.cves ?? []).map((c) => c.cve_id);
}
