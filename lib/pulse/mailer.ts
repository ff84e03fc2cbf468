/**
 * E-mail over SMTP (`--smtp smtp://user:pass@host:587`, or smtps:// for implicit TLS) through
 * nodemailer. The sender is `--mail-from` (default `vulnintel <pulse@<public host>>`).
 * An smtp:// URL with credentials requires STARTTLS (see createMailer).
 */
import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { parseOptionUrl } from '../option-url.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** `<id@domain>`; absent: nodemailer makes a random one. */
  messageId?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A message the server did not take within the bound for one message (createMailer's sendTimeoutMs). */
export class SendTimeoutError extends Error {
  constructor(ms: number, options?: { cause?: unknown }) {
    super(`the mail server did not take the message within ${ms} ms`, options);
    this.name = 'SendTimeoutError';
  }
}

/**
 * `timeoutMs` bounds each wait on the server (connecting, its greeting, each reply);
 * `sendTimeoutMs` one message as a whole: a server answering every command just inside
 * `timeoutMs` (or a pool retrying a dropped connection) took minutes per message, past the
 * lease notify gives a delivery in flight (SENDING_LEASE_MS), after which another notifier
 * sends it again.
 */
export function createMailer(smtpUrl: string, from: string, timeoutMs = 30_000, sendTimeoutMs = 4 * timeoutMs): Mailer {
  const url = parseOptionUrl('--smtp', smtpUrl, ['smtp', 'smtps'], 'smtp://user:password@mail.example.org:587');
  checkSender(from);
  // Credentials over smtp:// go only inside STARTTLS: nodemailer upgrades only when the server
  // offers it, and otherwise sends AUTH in clear, so a server without it (or anyone on the path
  // deleting "250-STARTTLS" from its EHLO reply) got the password. The URL's own
  // `?requireTLS=false` still wins (nodemailer applies the URL's options last), for a relay
  // that can only take it in clear.
  const requireTLS = url.protocol === 'smtp:' && (url.username !== '' || url.password !== '');
  // A few pooled connections (notify sends many messages in a row); timeouts bounded, so a dead
  // server cannot hold notify for nodemailer's 10-minute default.
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    pool: true,
    maxConnections: 4,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(requireTLS ? { requireTLS: true } : {}),
  } as never);
  return {
    async send(message) {
      const signal = AbortSignal.timeout(sendTimeoutMs);
      await transport.sendMail({
        signal,
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        // Every message of ours is sent by a program (RFC 3834): mail systems send no vacation
        // or out-of-office reply back to it.
        headers: { 'Auto-Submitted': 'auto-generated', ...message.headers },
        ...(message.messageId !== undefined ? { messageId: message.messageId } : {}),
      }).catch((err: unknown) => {
        // nodemailer's words for it, "Message sending aborted", do not say why.
        throw signal.aborted ? new SendTimeoutError(sendTimeoutMs, { cause: err }) : err;
      });
    },
    close: () => transport.close(),
  };
}

/**
 * The sender must be one address (a display name allowed): anything else is refused when the
 * command starts, not by the SMTP server on every message, each then retried for a day.
 */
function checkSender(from: string): void {
  const parsed = addressparser(from);
  const one = parsed.length === 1 ? parsed[0] : undefined;
  const address = one && 'address' in one ? one.address : undefined;
  if (!address || !/^[^\s@]+@[^\s@]+$/.test(address)) {
    throw new Error(`--mail-from: not one e-mail address: ${JSON.stringify(from)} (e.g. "vulnintel <alerts@example.org>")`);
  }
}

export function defaultMailFrom(publicUrl: string): string {
  return `vulnintel <pulse@${new URL(publicUrl).hostname}>`;
}
