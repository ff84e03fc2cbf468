/**
 * One message to a mail server that answers every command slowly, each reply just inside the
 * wait allowed for it: the message as a whole is bounded too. It took as long as the server
 * pleased (minutes at 30 s a reply), past the lease notify gives a delivery in flight, after
 * which a second notifier sends it again.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { createMailer } from '../../lib/pulse/mailer.ts';

const REPLY_MS = 600;
let server: SMTPServer;
let port = 0;
const later = (callback: () => void) => setTimeout(callback, REPLY_MS);

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onConnect: (_session, callback) => later(callback),
    onMailFrom: (_address, _session, callback) => later(callback),
    onRcptTo: (_address, _session, callback) => later(callback),
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => later(callback));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a mail server answering each command slowly', () => {
  const message = { to: 'ops@example.org', subject: 'test', text: 'hello', html: '<p>hello</p>' };

  it('gets a message when the whole of it fits in the bound', async () => {
    const mailer = createMailer(`smtp://127.0.0.1:${port}`, 'vulnintel <pulse@pulse.example.org>', 1000, 10_000);
    try {
      await mailer.send(message);
    } finally {
      mailer.close();
    }
  });

  it('is given up at the bound for the whole message, though no reply took longer than the wait for one', async () => {
    // Four slow replies (greeting, MAIL, RCPT, end of DATA): 2.4 s, each 0.6 s within the 1 s wait.
    const mailer = createMailer(`smtp://127.0.0.1:${port}`, 'vulnintel <pulse@pulse.example.org>', 1000, 1500);
    const started = performance.now();
    try {
      await expect(mailer.send(message)).rejects.toThrow('the mail server did not take the message within 1500 ms');
    } finally {
      mailer.close();
    }
    expect(performance.now() - started).toBeLessThan(2200);
  });
});
