/**
 * What the subscription service refuses, it refuses before anything is stored or sent, and the
 * same on both stores: SQLite, and a real PostgreSQL (whose JSONB is stricter than SQLite's
 * text). A refusal is a PulseInputError naming the field (the API's 400 INVALID_PARAMETER).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PulseInputError, PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { createMailer } from '../../lib/pulse/mailer.ts';
import { PulseService } from '../../lib/pulse/service.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

let postgres: PostgresServer;

beforeAll(async () => {
  postgres = await startPostgres();
});

afterAll(async () => {
  await postgres?.stop();
});

/** The field a refusal names (fails the test when the promise does not reject with a PulseInputError). */
async function refusedField(attempt: Promise<unknown>): Promise<string> {
  const err = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'refused').toBeInstanceOf(PulseInputError);
  return (err as PulseInputError).field;
}

describe.each(['sqlite', 'postgres'] as const)('on the %s store', (kind) => {
  let fixture: ServiceFixture;

  beforeAll(async () => {
    const pulseDb = kind === 'postgres' ? await postgres.createDatabase('pulse_refusals') : undefined;
    fixture = await startServiceFixture({ limits: { createsPerCallerPerHour: 1000, createsPerAddressPerHour: 1000 }, ...(pulseDb ? { pulseDb } : {}) });
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it('a lone surrogate in filter text is a 400 naming the member, before the webhook is pinged (it was a 500 on PostgreSQL after a signed ping)', async () => {
    const { service, hooks } = fixture;
    for (const [member, value] of [['vendor', 'x\ud800y'], ['search', '\udfff'], ['product', 'a\udc00'], ['package', '\ud83d']] as const) {
      const path = `/lone-${member}`;
      const filter = member === 'product' ? { vendor: 'acme', product: value } : { [member]: value };
      expect(await refusedField(service.create({ channel: 'webhook', url: hooks.url(path), filter }, 'caller-1')), member).toBe(`filter.${member}`);
      expect(hooks.on(path), `${member}: no ping`).toEqual([]);
    }
    // A pair of surrogates is one character (an emoji), and is taken.
    const created = await service.create({ channel: 'webhook', url: hooks.url('/pair'), filter: { search: 'fire \ud83d\udd25' } }, 'caller-1');
    expect(created.subscription.filter).toEqual({ search: 'fire \ud83d\udd25' });
  });

  it('a PATCH with a lone surrogate is a 400 naming the member; the filter is left as it was', async () => {
    const { service, hooks } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/patched'), filter: { vendor: 'cisco' } }, 'caller-1');
    const token = created.manage_url!.split('/').at(-1)!;
    expect(await refusedField(service.update(token, { filter: { search: '\udfff' } }))).toBe('filter.search');
    expect((await service.get(token)).filter).toEqual({ vendor: 'cisco' });
  });
});

describe('e-mail addresses: the address stored is the address mailed', () => {
  let fixture: ServiceFixture;

  beforeAll(async () => {
    fixture = await startServiceFixture({ limits: { createsPerCallerPerHour: 1000, createsPerAddressPerHour: 1000 } });
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it.each([
    ['a numeric domain, which the mailer read as the IPv4 address 10.0.0.1', 'bob@10.1'],
    ['a numeric domain read as 123.0.1.200', 'a@123.456'],
    ['an IPv4 address for a domain', 'a@127.0.0.1'],
    ['another one', 'a@1.2.3.4'],
    ['an address literal', 'a@[127.0.0.1]'],
    ['a last label the host parser reads as a hex number', 'a@example.0x1f'],
    ['an xn-- label that is not Punycode', 'a@xn--zz.example.org'],
    ['a single label', 'a@localhost'],
    ['a lone surrogate (it was mailed to a\\ufffd@…)', 'a\ud800@example.org'],
    ['a bidirectional override', 'a\u202eb@example.org'],
    ['an isolate', 'a\u2066b@example.org'],
    ['a C1 control (NEL)', 'a\u0085b@example.org'],
    ['a C0 control', 'a\u0007b@example.org'],
    ['a dot first', '.a@example.org'],
    ['a dot last', 'a.@example.org'],
    ['two dots in a row', 'a..b@example.org'],
    ['a local part past 64 characters', `${'a'.repeat(65)}@example.org`],
  ])('%s (%j) is a 400 naming email; nothing is mailed', async (_name, email) => {
    const { service, smtp } = fixture;
    const before = smtp.recipients.length;
    expect(await refusedField(service.create({ channel: 'email', email }, 'caller-1'))).toBe('email');
    expect(smtp.recipients.slice(before)).toEqual([]);
  });

  it('an address that is taken is stored as the mailer sends it: the domain lower-cased, the local part as given', async () => {
    const { service, smtp } = fixture;
    for (const [email, stored] of [
      ['Bob.Smith+alerts@Example.ORG', 'Bob.Smith+alerts@example.org'],
      ["o'neil@Sub.Example.co.uk", "o'neil@sub.example.co.uk"],
      ['a@x.1a', 'a@x.1a'],
    ] as const) {
      const before = smtp.recipients.length;
      const created = await service.create({ channel: 'email', email }, 'caller-1');
      expect(created.subscription.address, email).toBe(stored);
      expect(created.confirmation?.sent_to, email).toBe(stored);
      // create() returns once the SMTP server took the message: its envelope is in.
      expect(smtp.recipients.slice(before), email).toEqual([stored]);
    }
  });
});

describe('the mail server refusing the recipient', () => {
  let fixture: ServiceFixture;

  beforeAll(async () => {
    fixture = await startServiceFixture({
      // One creation per hour per caller and per address: a refusal that counted would show.
      limits: { createsPerCallerPerHour: 1, createsPerAddressPerHour: 1 },
      smtp: {
        refuseRecipient: (address) =>
          address.startsWith('nobody@')
            ? { code: 501, message: 'Bad recipient address syntax (relay mx-internal-7.corp)' }
            : address.startsWith('later@')
              ? { code: 451, message: 'Greylisted, try again' }
              : address.startsWith('relayed@')
                ? { code: 554, message: '5.7.1 Relay access denied' }
                : null,
      },
    });
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it('for good (5xx to RCPT): a 400 naming email without the server\'s words; nothing stored, nothing counted (it was a 503 "try again later")', async () => {
    const { service, smtp, store } = fixture;
    const err = await service.create({ channel: 'email', email: 'nobody@example.org' }, 'caller-a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseInputError);
    expect((err as PulseInputError).field).toBe('email');
    expect((err as Error).message).not.toMatch(/Bad recipient|mx-internal/);
    expect(smtp.messages).toEqual([]);
    // Not counted: the same caller still has its one creation, the same address its own.
    expect(await refusedField(service.create({ channel: 'email', email: 'nobody@example.org' }, 'caller-b'))).toBe('email');
    const created = await service.create({ channel: 'email', email: 'ok@example.org' }, 'caller-a');
    expect(created.subscription.status).toBe('pending');
    // Nothing stored: the only pending request in the store is the one accepted.
    expect(await store.purgeExpired('9999-01-01T00:00:00.000Z', new Date().toISOString())).toBe(1);
  });

  it('for now (4xx to RCPT): still 503, try again later', async () => {
    const err = await fixture.service.create({ channel: 'email', email: 'later@example.org' }, 'caller-c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseUnavailableError);
  });

  it('for good, for a reason of the operator\'s set-up (554 5.7.1 Relay access denied): 503, not a 400 telling the caller to check the address', async () => {
    const err = await fixture.service.create({ channel: 'email', email: 'relayed@example.org' }, 'caller-f').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseUnavailableError);
    expect((err as Error).message).toBe('The confirmation e-mail could not be sent: the mail server cannot be reached or did not take it. Nothing was stored; try again later.');
  });

  it('for now, or the server down: the caller is not given the server\'s words nor its address, the operator\'s log is (they were in the 503)', async () => {
    const told: unknown[] = [];
    const service = new PulseService({ store: fixture.store, links: fixture.links, mailer: fixture.mailer, allowPrivateWebhooks: true, onMailError: (err) => told.push(err) });
    const greylisted = await service.create({ channel: 'email', email: 'later@example.org' }, 'caller-d').catch((e: unknown) => e);
    expect(greylisted).toBeInstanceOf(PulseUnavailableError);
    expect((greylisted as Error).message).toBe('The mail server cannot take mail for this address right now (SMTP 4xx); nothing was stored, try again later.');

    // A mail server nobody listens on (port 9, discard): the connection is refused.
    const down = createMailer('smtp://127.0.0.1:9', 'vulnintel <pulse@pulse.example.org>', 2000);
    try {
      const unreachable = new PulseService({ store: fixture.store, links: fixture.links, mailer: down, allowPrivateWebhooks: true, onMailError: (err) => told.push(err) });
      const err = await unreachable.create({ channel: 'email', email: 'ok2@example.org' }, 'caller-e').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PulseUnavailableError);
      expect((err as Error).message).toBe('The confirmation e-mail could not be sent: the mail server cannot be reached or did not take it. Nothing was stored; try again later.');
    } finally {
      down.close();
    }
    expect(told.map((e) => (e as Error).message)).toEqual([expect.stringMatching(/Greylisted/), expect.stringMatching(/ECONNREFUSED 127\.0\.0\.1:9/)]);
  });
});
