/**
 * Real local receivers for the notifier's tests and benchmark: an SMTP server (the
 * `smtp-server` package; messages parsed with `mailparser`) and a webhook receiver (node:http)
 * that checks the signature of every request with the secret registered for its path.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { SIGNATURE_HEADER, verifySignature } from '../../lib/pulse/webhook.ts';

export interface SmtpSink {
  url: string;
  messages: ParsedMail[];
  /** Every RCPT TO address as the client sent it in the envelope (where the mail really goes), refused ones included. */
  recipients: string[];
  /** Messages to one address. */
  to(address: string): ParsedMail[];
  /** Resolves once `count` messages arrived in total. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  parse?: boolean;
  /** The reply to a RCPT TO (e.g. 501 or 451 with its text), or null to accept it. */
  refuseRecipient?: (address: string) => { code: number; message: string } | null;
  /** The reply to a message once received (e.g. 554 as spam), by its envelope's recipients, or null to keep it. */
  refuseMessage?: (recipients: string[]) => { code: number; message: string } | null;
  /**
   * Milliseconds to wait, once a message is received and kept, before answering its DATA (0: at
   * once): past the client's timeout, the message arrived but the client counts it as failed.
   */
  replyDelayMs?: () => number;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const recipients: string[] = [];
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      recipients.push(address.address);
      const refusal = opts.refuseRecipient?.(address.address) ?? null;
      if (refusal === null) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const refusal = opts.refuseMessage?.(session.envelope.rcptTo.map((a) => a.address)) ?? null;
      if (refusal !== null) {
        stream.on('data', () => {});
        stream.on('end', () => callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code })));
        return;
      }
      if (opts.parse === false) {
        stream.on('data', () => {});
        stream.on('end', () => {
          received++;
          callback();
        });
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          received++;
          const delay = opts.replyDelayMs?.() ?? 0;
          if (delay > 0) setTimeout(callback, delay);
          else callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const addressesOf = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    recipients,
    to: (address) => messages.filter((m) => addressesOf(m).includes(address.toLowerCase())),
    get count() {
      return received;
    },
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${received}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as SmtpSink;
}

export interface WebhookHit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** The signature checked with the secret registered for the path (null: none registered). */
  verified: boolean | null;
  /** The status the receiver answered. */
  status: number;
}

/** A scripted answer of the webhook receiver: a status and headers of its own. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
}

export interface WebhookReceiver {
  url(path: string): string;
  hits: WebhookHit[];
  /** Hits on a path, optionally only those answered 2xx. */
  on(path: string, accepted?: boolean): WebhookHit[];
  /** The signing secret of a path (set after creation: the secret is shown once, to the creator). */
  setSecret(path: string, secret: string): void;
  /** Statuses to answer on a path, in order (a status, or one with headers: 429 with Retry-After); 200 once they run out. */
  respond(path: string, statuses: (number | ScriptedAnswer)[]): void;
  /** Milliseconds to wait before answering on a path (a slow receiver: a delivery in flight). */
  delay(path: string, ms: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(clockSeconds: () => number = () => Math.floor(Date.now() / 1000)): Promise<WebhookReceiver> {
  const hits: WebhookHit[] = [];
  const secrets = new Map<string, string>();
  const scripts = new Map<string, (number | ScriptedAnswer)[]>();
  const delays = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(path);
      const scripted = scripts.get(path)?.shift() ?? 200;
      const { status, headers = {} } = typeof scripted === 'number' ? { status: scripted } : scripted;
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        /* recorded as is */
      }
      const header = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined;
      hits.push({ path, headers: req.headers, body, json, verified: secret ? verifySignature(secret, header, body, clockSeconds()) : null, status });
      const answer = () => res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
      const wait = delays.get(path) ?? 0;
      if (wait > 0) setTimeout(answer, wait);
      else answer();
    });
  });
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    on: (path, accepted) => hits.filter((h) => h.path === path && (accepted === undefined || (h.status < 300) === accepted)),
    setSecret: (path, secret) => void secrets.set(path, secret),
    respond: (path, statuses) => void scripts.set(path, [...statuses]),
    delay: (path, ms) => void delays.set(path, ms),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
