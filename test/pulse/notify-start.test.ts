/**
 * Where a new subscription starts. A change's detected_at is the time its build began, and a
 * build is published minutes later: a subscription made while a build runs must still get that
 * build's changes (published after it subscribed), and none of a build published before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../lib/changes/model.ts';
import { runNotify } from '../../lib/pulse/notify.ts';
import { PulseService } from '../../lib/pulse/service.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;
/** The changes of the snapshot the server serves (what is published). */
let served: ChangeRow[] = [];
let service: PulseService;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: {} });
  const { store, links, mailer } = fixture;
  service = new PulseService({ store, links, mailer, allowPrivateWebhooks: true, now, changes: async () => served });
});
afterAll(async () => fixture?.close());

const deliveredIds = (path: string) =>
  fixture.hooks
    .on(path, true)
    .filter((h) => h.json.type === 'changes')
    .flatMap((h) => (h.json.items as { changes: { change_id: string }[] }[]).flatMap((i) => i.changes.map((c) => c.change_id)));

describe('a subscription made while a build runs', () => {
  it('gets the changes of that build once it is published, and none of the build published before', async () => {
    const { hooks, store, links, mailer, smtp, dataDir } = fixture;
    const published = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    const building = change({ build_id: 'b2', detected_at: '2026-11-24T10:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' });
    served = [published];

    // b2 began at 10:00; it is published at 10:20. Subscribed at 10:10: a webhook, and an e-mail
    // confirmed at 10:15.
    clock = new Date('2026-11-24T10:10:00.000Z');
    const hook = await service.create({ channel: 'webhook', url: hooks.url('/early'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/early', hook.secret!);
    await service.create({ channel: 'email', email: 'early@example.org', filter: { vendor: 'acme' } }, 'caller-1');
    await smtp.waitFor(1);
    clock = new Date('2026-11-24T10:15:00.000Z');
    await service.confirm(/\/pulse\/confirm\/([A-Za-z0-9_-]{22})/.exec(smtp.messages[0]!.text ?? '')![1]!);

    clock = new Date('2026-11-24T10:21:00.000Z');
    served = [published, building];
    expect(await runNotify({ dataDir, store, links, mailer, allowPrivateWebhooks: true, now, changes: served })).toMatchObject({ sent: 2 });
    expect(deliveredIds('/early')).toEqual([building.change_id]);
    const mail = smtp.to('early@example.org').find((m) => !m.subject?.includes('Confirm'))!;
    expect(mail.text).toContain(building.cve_id!);
    expect(mail.text).not.toContain(published.cve_id!);
  });
});
