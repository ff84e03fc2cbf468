/** The POST → GET handoffs of the subscribe form (api/pulse/handoff.ts): once, briefly, bounded. */
import { describe, expect, it } from 'vitest';
import { CREATED_TTL_MS, DRAFT_TTL_MS, Handoffs, type CreatedHandoff } from '../../api/pulse/handoff.ts';

const webhook: CreatedHandoff = { kind: 'created', channel: 'webhook', manage_url: 'https://x.example/pulse/s/AAAAAAAAAAAAAAAAAAAAAA', secret: 'whsec_abc', confirmation: null };
const email: CreatedHandoff = { kind: 'created', channel: 'email', manage_url: null, secret: null, confirmation: { sent_to: 'a@example.org', expires_at: '2026-11-29T00:00:00Z' } };

describe('Handoffs', () => {
  it('hands a webhook\'s secret out once; a second read says it was taken, and holds it no more', () => {
    const handoffs = new Handoffs();
    const id = handoffs.put(webhook, CREATED_TTL_MS);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(handoffs.read(id)).toEqual(webhook);
    expect(handoffs.read(id)).toBe('taken');
    expect(handoffs.read(id)).toBe('taken');
  });

  it('a read that does not take (a HEAD) leaves a webhook\'s secret for the read that does', () => {
    const handoffs = new Handoffs();
    const id = handoffs.put(webhook, CREATED_TTL_MS);
    expect(handoffs.read(id, false)).toEqual(webhook);
    expect(handoffs.read(id, false)).toEqual(webhook);
    expect(handoffs.read(id)).toEqual(webhook);
    expect(handoffs.read(id, false)).toBe('taken');
  });

  it('shows what holds no secret (an e-mail\'s page, a draft) as often as asked, until it expires', () => {
    let now = 1_000_000;
    const handoffs = new Handoffs(() => now);
    const mail = handoffs.put(email, CREATED_TTL_MS);
    const draft = handoffs.put({ kind: 'draft', channel: 'email', email: 'a@example.org', url: '', cadence: 'daily' }, DRAFT_TTL_MS);
    expect(handoffs.read(mail)).toEqual(email);
    expect(handoffs.read(mail)).toEqual(email);
    expect(handoffs.read(draft)).toMatchObject({ kind: 'draft', email: 'a@example.org' });
    now += CREATED_TTL_MS;
    expect(handoffs.read(mail)).toBeNull();
    expect(handoffs.read(draft)).not.toBeNull();
    now += DRAFT_TTL_MS;
    expect(handoffs.read(draft)).toBeNull();
  });

  it('an unknown, malformed or missing id is nothing; the ids are unguessable and distinct', () => {
    const handoffs = new Handoffs();
    for (const id of [undefined, '', 'x', 'A'.repeat(22), '../../etc/passwd']) expect(handoffs.read(id)).toBeNull();
    const ids = new Set(Array.from({ length: 100 }, () => handoffs.put(email, CREATED_TTL_MS)));
    expect(ids.size).toBe(100);
  });

  it('is bounded: the oldest entries go first', () => {
    const handoffs = new Handoffs();
    const first = handoffs.put(webhook, CREATED_TTL_MS);
    for (let i = 0; i < 10_000; i++) handoffs.put(email, CREATED_TTL_MS);
    expect(handoffs.read(first)).toBeNull();
  });

  it('drafts do not push creations out: a caller pressing Preview 10,000 times cannot lose a new webhook\'s secret', () => {
    const handoffs = new Handoffs();
    const created = handoffs.put(webhook, CREATED_TTL_MS);
    const drafts = Array.from({ length: 10_001 }, (_, i) => handoffs.put({ kind: 'draft', channel: 'webhook', email: '', url: `https://x.example/${i}`, cadence: 'realtime' }, DRAFT_TTL_MS));
    expect(handoffs.read(created)).toEqual(webhook);
    // The drafts are bounded among themselves, the oldest going first.
    expect(handoffs.read(drafts[0])).toBeNull();
    expect(handoffs.read(drafts.at(-1))).toMatchObject({ kind: 'draft', url: 'https://x.example/10000' });
  });
});
