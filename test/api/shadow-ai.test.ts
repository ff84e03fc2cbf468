/**
 * The shadow-AI radar on the sample snapshot: eight CVEs of AI software (langchain-core, vllm,
 * mlflow x2, pytorch, transformers, ollama, tensorflow) found through products and packages;
 * advisory matching checked with a catalog entry of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { radarIndex, shadowAiRadar, type ShadowAiRadar } from '../../api/queries/shadow-ai.ts';
import { TableUnavailableError } from '../../api/queries/support.ts';
import { SHADOW_AI_CATALOG, SHADOW_AI_COMPONENT_IDS, type ShadowAiComponent } from '../../api/shadow-ai/catalog.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { openDamagedSample, openSample } from './sample-reader.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

const AI_CVES: Record<string, string> = {
  'CVE-2026-90041': 'langchain',
  'CVE-2026-90042': 'vllm',
  'CVE-2026-90301': 'mlflow',
  'CVE-2026-90302': 'mlflow',
  'CVE-2026-90303': 'pytorch',
  'CVE-2026-90304': 'transformers',
  'CVE-2026-90305': 'ollama',
  'CVE-2025-90308': 'tensorflow',
};

describe('catalog', () => {
  it('has unique ids and something to match for every entry', () => {
    expect(SHADOW_AI_COMPONENT_IDS.size).toBe(SHADOW_AI_CATALOG.length);
    for (const c of SHADOW_AI_CATALOG) {
      expect(c.id).toMatch(/^[a-z0-9-]+$/);
      expect(c.products.length + c.packages.length, c.id).toBeGreaterThan(0);
      for (const [vendor, product] of c.products) expect(`${vendor}:${product}`).toBe(`${vendor}:${product}`.toLowerCase().replace(/\s+/g, '_'));
      for (const pattern of c.advisory) expect(() => new RegExp(pattern)).not.toThrow();
    }
  });

  it('covers the software the radar promises', () => {
    for (const id of ['pytorch', 'tensorflow', 'keras', 'jax', 'transformers', 'onnx', 'ollama', 'vllm', 'triton-inference-server', 'torchserve',
      'text-generation-inference', 'llama-cpp', 'localai', 'langchain', 'llama-index', 'openai-sdk', 'anthropic-sdk', 'litellm', 'semantic-kernel',
      'haystack', 'autogen', 'crewai', 'flowise', 'langflow', 'open-webui', 'gradio', 'mlflow', 'ray', 'jupyter']) {
      expect(SHADOW_AI_COMPONENT_IDS.has(id), id).toBe(true);
    }
  });
});

describe('radar', () => {
  it('finds the AI CVEs through products and packages, newest first, and nothing else', async () => {
    const radar = await shadowAiRadar(sample, { components: [], limit: 50 });
    expect(Object.fromEntries(radar.cves.map((c) => [c.cve_id, c.components.join(',')]))).toEqual(AI_CVES);
    const published = radar.cves.map((c) => c.published!);
    expect(published).toEqual([...published].sort().reverse());
    expect(radar.total_cves).toBe(8);
    expect(radar.components.map((c) => [c.id, c.cve_count])).toEqual([
      ['mlflow', 2],
      ['langchain', 1],
      ['ollama', 1],
      ['pytorch', 1],
      ['tensorflow', 1],
      ['transformers', 1],
      ['vllm', 1],
    ]);
    expect(radar.cves[0]).toMatchObject({ service_score: expect.any(Number), score_assessed: true, kev: expect.any(Boolean), last_modified: expect.any(String) });
  });

  it('finds a package named only by a CVE record, with no ecosystem (ollama)', async () => {
    const radar = await shadowAiRadar(sample, { components: ['ollama'], limit: 50 });
    expect(radar.cves.map((c) => c.cve_id)).toEqual(['CVE-2026-90305']);
  });

  it('component keeps the CVEs of those components and names only them', async () => {
    const radar = await shadowAiRadar(sample, { components: ['mlflow', 'vllm'], limit: 50 });
    expect(radar.cves.map((c) => c.cve_id).sort()).toEqual(['CVE-2026-90042', 'CVE-2026-90301', 'CVE-2026-90302']);
    expect(radar.components.map((c) => c.id)).toEqual(['mlflow', 'vllm']);
  });

  it('since keeps CVEs last modified at or after it; limit cuts the lists, not the totals', async () => {
    const all = await shadowAiRadar(sample, { components: [], limit: 50 });
    const cut = all.cves.map((c) => c.last_modified!).sort()[4]!;
    const recent = await shadowAiRadar(sample, { components: [], limit: 50, sinceMicros: BigInt(Date.parse(cut)) * 1000n });
    expect(recent.total_cves).toBe(4);
    expect(recent.cves.every((c) => c.last_modified! >= cut)).toBe(true);
    const two = await shadowAiRadar(sample, { components: [], limit: 2 });
    expect(two.cves).toEqual(all.cves.slice(0, 2));
    expect(two.total_cves).toBe(8);
  });

  it('matches vendor advisories by product name (a test catalog entry for Cisco IOS XE)', async () => {
    const catalog: ShadowAiComponent[] = [
      { id: 'ios-xe', name: 'test', category: 'agent_app', products: [], packages: [], advisory: ['\\bios xe\\b'] },
    ];
    const index = await radarIndex(sample, catalog);
    expect(index.advisories.map((a) => [a.vendor, a.advisory_id, a.components])).toEqual([
      ['cisco', 'cisco-sa-iosxe-webui-privesc-Kq7dTn3', ['ios-xe']],
    ]);
    expect(index.advisories[0]!.api_path).toBe('/api/v1/public/vendor-advisories/cisco/cisco-sa-iosxe-webui-privesc-Kq7dTn3');
    expect(index.cves).toEqual([]);
  });

  it('a damaged products table is reported as unavailable', async () => {
    const damaged = await openDamagedSample(['products']);
    try {
      await expect(shadowAiRadar(damaged, { components: [], limit: 5 })).rejects.toBeInstanceOf(TableUnavailableError);
    } finally {
      damaged.close();
    }
  });
});

describe('GET /api/v1/public/shadow-ai-radar', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });
  const radar = (query: string) => api.json<ShadowAiRadar>(`/api/v1/public/shadow-ai-radar${query}`);

  it('answers the radar; component is a comma list of catalog ids, any case', async () => {
    const all = await radar('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total_cves: 8, total_advisories: 0, limit: 50 });
    const some = await radar('?component=Ollama,vllm&limit=1');
    expect(some.body).toMatchObject({ total_cves: 2, limit: 1 });
    expect(some.body.cves).toHaveLength(1);
    expect(some.body.components.map((c) => c.id).sort()).toEqual(['ollama', 'vllm']);
  });

  it('since filters on last modification', async () => {
    expect((await radar('?since=2026-10-20')).body.total_cves).toBe(2);
  });

  it('400 naming component, since or limit', async () => {
    for (const [query, parameter] of [
      ['?component=skynet', 'component'],
      ['?component=ollama,', 'component'],
      ['?since=2026-10', 'since'],
      ['?limit=0', 'limit'],
    ] as const) {
      const { status, body } = await api.json(`/api/v1/public/shadow-ai-radar${query}`);
      expect(status, query).toBe(400);
      expect(body).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    }
  });
});
