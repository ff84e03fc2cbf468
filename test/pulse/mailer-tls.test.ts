/**
 * `--smtp smtp://user:password@host:587`: the password goes to the server only inside TLS. A
 * server (or a man in the middle that strips `250-STARTTLS` from the EHLO reply) offering no
 * STARTTLS got the password in clear, base64 in `AUTH PLAIN`. Now STARTTLS is required when the
 * URL carries credentials, unless the operator says `?requireTLS=false`; without credentials
 * (a local relay) mail still goes in clear when the server offers nothing better.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { createMailer } from '../../lib/pulse/mailer.ts';

const FROM = 'vulnintel <pulse@pulse.example.org>';
const message = { to: 'ops@example.org', subject: 'test', text: 'hello', html: '<p>hello</p>' };

let server: SMTPServer;
let port = 0;
const passwords: string[] = [];
let delivered = 0;

beforeAll(async () => {
  server = new SMTPServer({
    // No STARTTLS offered (or stripped on the way), AUTH accepted in clear.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      passwords.push(auth.password ?? '');
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        delivered++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('an SMTP server that offers no STARTTLS', () => {
  it('never gets the password of an smtp:// URL: the message fails, saying TLS was required', async () => {
    const mailer = createMailer(`smtp://alerts:s3cret@127.0.0.1:${port}`, FROM, 5000);
    try {
      await expect(mailer.send(message)).rejects.toThrow(/STARTTLS|TLS/i);
    } finally {
      mailer.close();
    }
    expect(passwords).toEqual([]);
    expect(delivered).toBe(0);
  });

  it('gets it when the operator allows clear text explicitly (?requireTLS=false)', async () => {
    const mailer = createMailer(`smtp://alerts:s3cret@127.0.0.1:${port}?requireTLS=false`, FROM, 5000);
    try {
      await mailer.send(message);
    } finally {
      mailer.close();
    }
    expect(passwords).toEqual(['s3cret']);
    expect(delivered).toBe(1);
  });

  it('still takes mail in clear from an smtp:// URL without credentials (a local relay)', async () => {
    const mailer = createMailer(`smtp://127.0.0.1:${port}`, FROM, 5000);
    try {
      await mailer.send(message);
    } finally {
      mailer.close();
    }
    expect(delivered).toBe(2);
  });
});
