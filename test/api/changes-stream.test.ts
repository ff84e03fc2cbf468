/**
 * `GET /pulse/stream` (PULSE §3) on a real server with a real snapshot swap: the first build of
 * the changes corpus is served, streams are opened, the second build is published, and each
 * stream receives that build's matching changes (event id = change_id), heartbeats between;
 * `Last-Event-ID` resumes from history; streams per caller are bounded; an open stream does not
 * keep the replaced snapshot open.
 */
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../cli/build/publish.ts';
import { snapshotsDir } from '../../lib/snapshot-layout.ts';
import { buildChangesCorpus, rebuild, type ChangesCorpus } from '../helpers/changes-corpus.ts';
import { checkAnswer, documentValidator, emptyDataDir, startOn, startSampleServer, type SampleServer } from './server-harness.ts';

interface SseEvent {
  id?: string;
  data?: string;
  comment?: string;
}

/**
 * A minimal EventSource over fetch, interpreting the stream as the WHATWG HTML standard's
 * "Interpreting an event stream" says (§9.2.6): lines end at CRLF, LF or CR; a line starting
 * with ':' is a comment; `id` sets the last event ID buffer (unless it holds NUL); `data`
 * appends to the data buffer; a blank line dispatches: the source's last event ID becomes the
 * buffer's, then an event is dispatched only if there is data (an id-only block moves the last
 * event ID and dispatches nothing). `events` holds the dispatched events (id = the last event ID
 * at dispatch) and the comments, in order; `lastEventId` is what a reconnection would send.
 */
class SseClient {
  readonly events: SseEvent[] = [];
  status = 0;
  body: unknown;
  /** The source's last event ID string: sent as `Last-Event-ID` when it reconnects. */
  lastEventId = '';
  private readonly abort = new AbortController();
  private waiters: Array<() => void> = [];
  ended = false;

  /** Opens a stream; `lastEventId` as a reconnecting EventSource sends it (nothing when empty). */
  static async open(url: string, headers: Record<string, string> = {}, lastEventId = ''): Promise<SseClient> {
    const client = new SseClient();
    client.lastEventId = lastEventId;
    const res = await fetch(url, { headers: { ...headers, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) }, signal: client.abort.signal });
    client.status = res.status;
    // Checked against the served document like any answer the harness receives: the stream's
    // headers (its body is not read), a refusal's body too (a 429 must be the RateLimited answer
    // the document declares on every operation).
    await checkAnswer(await documentValidator(new URL(url).origin)(), 'GET', url, res);
    if (res.status !== 200) {
      client.body = await res.json();
      return client;
    }
    void client.read(res.body!.getReader());
    return client;
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder(); // UTF-8, a leading BOM dropped
    let pending = '';
    let data = '';
    let idBuffer = this.lastEventId;
    const line = (text: string) => {
      if (text === '') {
        this.lastEventId = idBuffer;
        if (data === '') return;
        this.events.push({ id: this.lastEventId, data: data.endsWith('\n') ? data.slice(0, -1) : data });
        data = '';
        return;
      }
      if (text.startsWith(':')) {
        this.events.push({ comment: text.slice(1).trim() });
        return;
      }
      const colon = text.indexOf(':');
      const field = colon === -1 ? text : text.slice(0, colon);
      let value = colon === -1 ? '' : text.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data += `${value}\n`;
      else if (field === 'id' && !value.includes('\0')) idBuffer = value;
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        // A CR at the very end may be the first half of a CRLF: kept until more arrives.
        const lines = pending.split(/\r\n|\r(?!$)|\n/);
        pending = lines.pop()!;
        for (const text of lines) line(text);
        this.wake();
      }
    } catch {
      // aborted
    }
    // The end of the stream: an incomplete event is discarded (not dispatched).
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `test` holds for the events so far (or the stream ends, or time runs out). */
  async until(test: (events: SseEvent[]) => boolean, timeoutMs = 20_000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.events)) {
      if (this.ended) throw new Error(`stream ended; got ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.events;
  }

  changes(): Array<{ change_id: string; kind: string; build_id: string; in_kev: boolean | null }> {
    return this.events.filter(isChange).map((e) => JSON.parse(e.data!));
  }

  close(): void {
    this.abort.abort();
  }
}

/** Publishes a copy of one of the corpus's snapshots into `dataDir`, as a build does. */
async function publishCopy(corpus: ChangesCorpus, buildId: string, dataDir: string): Promise<void> {
  const staging = await mkdtemp(join(tmpdir(), 'vulnintel-stream-stage-'));
  await cp(join(snapshotsDir(corpus.dataDir), buildId), join(staging, buildId), { recursive: true });
  await publishSnapshot(dataDir, join(staging, buildId), buildId);
}

const isChange = (e: SseEvent) => e.data !== undefined;
const heartbeats = (n: number) => (events: SseEvent[]) => events.filter((e) => e.comment === 'heartbeat').length >= n;

describe('GET /pulse/stream', () => {
  let corpus: ChangesCorpus;
  let api: SampleServer;
  let all: SseClient;
  let kevOnly: SseClient;
  let expectedIds: string[];
  /** What an EventSource dropped before any event holds: the ids it would reconnect with. */
  let droppedAll: string;
  let droppedKev: string;

  beforeAll(async () => {
    corpus = await buildChangesCorpus();
    const dataDir = await emptyDataDir();
    await publishCopy(corpus, corpus.first.buildId, dataDir);
    api = await startOn(dataDir, corpus.first.buildId, { pulseStream: { heartbeatMs: 300, maxPerCaller: 2 } });
    const feed = await fetch(`${api.base}/api/v1/public/changes?limit=200`);
    expect(((await feed.json()) as { changes: unknown[] }).changes).toEqual([]);
  }, 240_000);

  afterAll(async () => {
    all?.close();
    kevOnly?.close();
    await api?.server.close();
  });

  it('refuses a malformed filter with 400 naming it', async () => {
    const bad = await SseClient.open(`${api.base}/pulse/stream?kind=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'kind' });
    // A search with no letter or digit looks for nothing (it streamed every change).
    const nothing = await SseClient.open(`${api.base}/pulse/stream?search=***`);
    nothing.close(); // (were it open, it would hold one of this caller's streams)
    expect(nothing.status).toBe(400);
    expect(nothing.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'search' });
    // A product without its vendor.
    const product = await SseClient.open(`${api.base}/pulse/stream?product=windows`);
    product.close();
    expect(product.status).toBe(400);
    expect(product.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'product' });
  });

  it('gives a stream its position when it opens, as an id-only block (no event)', async () => {
    // A client that reconnected before any event sent no Last-Event-ID and started after the
    // build served then: the build swapped in meanwhile was never sent to it.
    for (const filter of ['', '?kev_only=true']) {
      const early = await SseClient.open(`${api.base}/pulse/stream${filter}`);
      try {
        await early.until(heartbeats(1), 5_000);
        expect(early.events.filter(isChange)).toEqual([]);
        // The first build's snapshot holds no change at all: the position is its build.
        expect(early.lastEventId).toBe(corpus.first.buildId);
        if (filter) droppedKev = early.lastEventId;
        else droppedAll = early.lastEventId;
      } finally {
        early.close();
      }
    }
    await new Promise((r) => setTimeout(r, 200)); // the server notices the closed streams
  });

  it('sends nothing before a swap but heartbeats, and is bounded per caller', async () => {
    all = await SseClient.open(`${api.base}/pulse/stream`);
    kevOnly = await SseClient.open(`${api.base}/pulse/stream?kev_only=true`);
    expect(all.status).toBe(200);
    await all.until((events) => events.filter((e) => e.comment === 'heartbeat').length >= 2, 5_000);
    expect(all.events.filter(isChange)).toEqual([]);
    expect(all.events[0]!.comment).toContain(`after snapshot ${corpus.first.buildId}`);

    const third = await SseClient.open(`${api.base}/pulse/stream`);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 2 });
  });

  it("sends the new build's matching changes when the replica swaps, without pinning the old snapshot", async () => {
    const old = api.server.store.current!;
    await publishCopy(corpus, corpus.second.buildId, api.dataDir);
    await all.until((events) => events.filter(isChange).length >= 15);
    await kevOnly.until((events) => events.filter(isChange).length >= 4);

    const changes = all.changes();
    expect(changes).toHaveLength(15);
    expect(changes.every((c) => c.build_id === corpus.second.buildId)).toBe(true);
    expectedIds = changes.map((c) => c.change_id);
    expect(expectedIds).toEqual([...expectedIds].sort());
    expect(all.events.filter(isChange).map((e) => e.id)).toEqual(expectedIds);
    const feed = (await (await fetch(`${api.base}/api/v1/public/changes?limit=200`)).json()) as { changes: Array<{ change_id: string }> };
    expect(feed.changes.map((c) => c.change_id)).toEqual(expectedIds);

    const kev = kevOnly.changes();
    expect(kev.map((c) => c.kind).sort()).toEqual(['kev_added', 'risk_changed', 'score_changed', 'ssvc_changed']);
    expect(kev.every((c) => c.in_kev === true)).toBe(true);

    // Both streams are still open; the replaced snapshot closed all the same.
    await Promise.race([old.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('old snapshot still open')), 10_000))]);
    expect(all.ended).toBe(false);
  }, 60_000);

  it('resumes after Last-Event-ID with the changes after that one, from history', async () => {
    all.close();
    await new Promise((r) => setTimeout(r, 200)); // the server notices the closed stream
    const resumed = await SseClient.open(`${api.base}/pulse/stream`, {}, expectedIds[4]!);
    expect(resumed.status).toBe(200);
    await resumed.until((events) => events.filter(isChange).length >= 10);
    expect(resumed.events.filter(isChange).map((e) => e.id)).toEqual(expectedIds.slice(5));
    resumed.close();

    await new Promise((r) => setTimeout(r, 200));
    const unknown = await SseClient.open(`${api.base}/pulse/stream`, {}, 'ffffffffffffffffffffffff');
    await unknown.until((events) => events.some((e) => e.comment?.includes('not in the 90-day history')));
    await unknown.until((events) => events.some((e) => e.comment === 'heartbeat'), 5_000);
    expect(unknown.events.filter(isChange)).toEqual([]);
    // No position replaces the client's id: it may be of a build this replica has not served yet.
    expect(unknown.lastEventId).toBe('ffffffffffffffffffffffff');
    unknown.close();

    // A build older than the history: what came after it may have aged out.
    await new Promise((r) => setTimeout(r, 200));
    const aged = await SseClient.open(`${api.base}/pulse/stream`, {}, '20000101T000000Z-0000');
    await aged.until((events) => events.some((e) => e.comment?.includes('not in the 90-day history')));
    await aged.until(heartbeats(1), 5_000);
    expect(aged.events.filter(isChange)).toEqual([]);
    expect(aged.lastEventId).toBe(corpus.second.buildId);
    aged.close();
  }, 60_000);

  it('sends a client dropped before any event the build published meanwhile, once', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const again = await SseClient.open(`${api.base}/pulse/stream`, {}, droppedAll);
    await again.until((events) => events.filter(isChange).length >= 15);
    await again.until(heartbeats(2), 5_000);
    expect(again.events.filter(isChange).map((e) => e.id)).toEqual(expectedIds);
    // Past everything the served snapshot holds: reconnecting with that sends nothing again.
    expect(again.lastEventId).toBe(corpus.second.buildId);
    again.close();

    await new Promise((r) => setTimeout(r, 200));
    const kev = await SseClient.open(`${api.base}/pulse/stream?kev_only=true`, {}, droppedKev);
    await kev.until((events) => events.filter(isChange).length >= 4);
    await kev.until(heartbeats(2), 5_000);
    expect(kev.changes().map((c) => c.kind).sort()).toEqual(['kev_added', 'risk_changed', 'score_changed', 'ssvc_changed']);
    // The snapshot's newest changes do not match this filter; its position is past them all the same.
    expect(kev.lastEventId).toBe(corpus.second.buildId);
    kev.close();

    for (const filter of ['', '?kev_only=true']) {
      await new Promise((r) => setTimeout(r, 200));
      const resumed = await SseClient.open(`${api.base}/pulse/stream${filter}`, {}, corpus.second.buildId);
      await resumed.until(heartbeats(2), 5_000);
      expect(resumed.events.filter(isChange)).toEqual([]);
      expect(resumed.lastEventId).toBe(corpus.second.buildId);
      resumed.close();
    }
  }, 60_000);

  it('resumes a client coming from a replica a build ahead without sending that build again', async () => {
    // A load balancer moved the client to a replica still serving the first build: its
    // Last-Event-ID (the second build's position, or a change of it when it dropped mid-build)
    // is not in this replica's history, and the second build was sent again on its swap.
    const dataDir = await emptyDataDir();
    await publishCopy(corpus, corpus.first.buildId, dataDir);
    const behind = await startOn(dataDir, corpus.first.buildId, { pulseStream: { heartbeatMs: 300, maxPerCaller: 2 } });
    try {
      const atEnd = await SseClient.open(`${behind.base}/pulse/stream`, {}, corpus.second.buildId);
      const midway = await SseClient.open(`${behind.base}/pulse/stream`, {}, expectedIds[9]!);
      await atEnd.until(heartbeats(1), 5_000);
      await midway.until(heartbeats(1), 5_000);
      expect(atEnd.lastEventId).toBe(corpus.second.buildId);
      expect(midway.lastEventId).toBe(expectedIds[9]);

      await publishCopy(corpus, corpus.second.buildId, dataDir);
      await midway.until((events) => events.filter(isChange).length >= 5);
      const swapped = atEnd.events.length;
      await atEnd.until((events) => events.slice(swapped).filter((e) => e.comment === 'heartbeat').length >= 2, 5_000);
      await midway.until(heartbeats(midway.events.filter((e) => e.comment === 'heartbeat').length + 2), 5_000);
      expect(behind.server.store.current?.buildId).toBe(corpus.second.buildId);
      expect(atEnd.events.filter(isChange)).toEqual([]);
      expect(midway.events.filter(isChange).map((e) => e.id)).toEqual(expectedIds.slice(10));
      expect(midway.lastEventId).toBe(corpus.second.buildId);
      atEnd.close();
      midway.close();
    } finally {
      await behind.server.close();
    }
  }, 60_000);

  it('ends open streams when the server closes', async () => {
    await api.server.close();
    await kevOnly.until(() => kevOnly.ended, 5_000).catch(() => undefined);
    expect(kevOnly.ended).toBe(true);
  }, 20_000);
});

describe('/pulse/stream to a client that never reads', () => {
  let api: SampleServer;
  let body: ReadableStream<Uint8Array> | null = null;

  afterAll(async () => {
    await body?.cancel().catch(() => undefined);
    await api?.server.close();
  });

  /** Waits until the replica serves `buildId`. */
  async function served(buildId: string): Promise<void> {
    for (let i = 0; i < 200 && api.server.store.current?.buildId !== buildId; i++) await new Promise((r) => setTimeout(r, 50));
    expect(api.server.store.current?.buildId).toBe(buildId);
  }

  it('does not keep a replaced snapshot open while its changes wait to be written (a stalled client pinned it for good)', async () => {
    const corpus = await buildChangesCorpus();
    const third = await rebuild(corpus);
    const dataDir = await emptyDataDir();
    await publishCopy(corpus, corpus.first.buildId, dataDir);
    api = await startOn(dataDir, corpus.first.buildId);
    // In process: nothing reads the body, so the stream's writes wait, as they do once a
    // socket's buffers are full when a client stops reading.
    const res = await api.server.app.fetch(new Request(`${api.base}/pulse/stream`));
    expect(res.status).toBe(200);
    body = res.body;

    await publishCopy(corpus, corpus.second.buildId, dataDir);
    await served(corpus.second.buildId);
    const second = api.server.store.current!;
    await new Promise((r) => setTimeout(r, 500)); // the stream reads the second build's changes

    await publishCopy(corpus, third.buildId, dataDir);
    await served(third.buildId);
    await Promise.race([second.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('replaced snapshot still open')), 10_000))]);
  }, 240_000);
});

describe('/pulse/stream behind a trusted proxy', () => {
  let api: SampleServer;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    const pulseDb = join(await mkdtemp(join(tmpdir(), 'vulnintel-stream-proxy-')), 'pulse.db');
    api = await startSampleServer({ pulseStream: { heartbeatMs: 300, maxPerCaller: 1 }, pulse: { pulseDb, trustProxy: ['127.0.0.1', '::1'] } });
  }, 240_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await api?.server.close();
  });

  it('bounds the streams of each client the proxy names, not of the proxy (every caller shared its 5)', async () => {
    const open = async (client: string) => {
      const stream = await SseClient.open(`${api.base}/pulse/stream`, { 'X-Forwarded-For': client });
      clients.push(stream);
      return stream;
    };
    expect((await open('203.0.113.7')).status).toBe(200);
    expect((await open('198.51.100.20')).status).toBe(200);
    const again = await open('203.0.113.7');
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 1 });
  });
});
