/**
 * What an SMTP server's refusal means (nodemailer names the command and the reply code on its
 * error, and keeps the reply line): whose fault it is, whether sending again can help, and how
 * to say it to a subscriber without the server's own words.
 */
import { SendTimeoutError } from './mailer.ts';

/** The first digit of the SMTP server's refusal when sending failed at `stage` (nodemailer names the command and the code on its error), else null. */
function replyClass(err: unknown, stage: 'RCPT TO' | 'DATA'): number | null {
  const { command, responseCode } = (err ?? {}) as { command?: unknown; responseCode?: unknown };
  return command === stage && typeof responseCode === 'number' && responseCode >= 400 && responseCode <= 599 ? Math.floor(responseCode / 100) : null;
}

/**
 * Whether sending failed because the SMTP server refused the recipient for good: a 5yz reply to
 * RCPT TO (RFC 5321 §4.2.1: permanent; "501 Bad recipient address syntax", "550 No such user").
 * A 4yz reply (greylisting, a full mailbox) or a failure of another command or of the connection
 * is the service's trouble, retried later.
 */
export function recipientRefusedForGood(err: unknown): boolean {
  // A reply whose enhanced status code (RFC 3463) blames the mail system, the network, the
  // protocol or a policy (5.3–5.5, 5.7: "554 5.7.1 Relay access denied" from a relay wanting
  // authentication) is the operator's trouble: every address met it, each told to check itself.
  return replyClass(err, 'RCPT TO') === 5 && !/^5\.[3457]\./.test(enhancedStatus(err) ?? '');
}

/** A 4yz reply to RCPT TO (greylisting, a full mailbox): this address, for now. */
export function recipientRefusedForNow(err: unknown): boolean {
  return replyClass(err, 'RCPT TO') === 4;
}

/** The enhanced status code of the server's reply (RFC 3463: `5.1.1` in "550 5.1.1 User unknown"), or null. */
function enhancedStatus(err: unknown): string | null {
  const { response } = (err ?? {}) as { response?: unknown };
  return typeof response === 'string' ? (/^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response)?.[1] ?? null) : null;
}

/**
 * The mailbox itself is gone, for good: a 5yz reply to RCPT TO whose enhanced status code (RFC
 * 3463) names the address: 5.1.1 bad mailbox, 5.1.2 bad domain, 5.1.3 bad address syntax, 5.1.6
 * moved, 5.1.10 null MX, 5.2.1 mailbox disabled. Not any 5yz: "554 5.7.1 Relay access denied"
 * (a relay wanting authentication) refuses every recipient for a reason of the operator's set-up,
 * nor a reply without the code, which does not say whose fault it is.
 */
export function mailboxGone(err: unknown): boolean {
  return replyClass(err, 'RCPT TO') === 5 && /^5\.(1\.(1|2|3|6|10)|2\.1)$/.test(enhancedStatus(err) ?? '');
}

/**
 * The message itself is too large for the server, for good: a 552 reply to DATA or to the message
 * after it, or 5.3.4 / 5.2.3 (RFC 3463: too big for the system, past an administrative limit).
 * The same message meets the same refusal however often it is sent (RFC 5321 §4.2.1: a client
 * "SHOULD NOT repeat the exact request"). Other 5yz refusals of a message (5.7.x policy: spam,
 * SPF, DMARC) may come from the operator's set-up, fixed within the retry window: retried.
 */
export function messageTooLarge(err: unknown): boolean {
  const { responseCode } = (err ?? {}) as { responseCode?: unknown };
  return replyClass(err, 'DATA') === 5 && (responseCode === 552 || /^5\.(3\.4|2\.3)$/.test(enhancedStatus(err) ?? ''));
}

/**
 * Why a message was not sent, in words for the subscription's manage page (shown to whoever holds
 * its link): what happened and the reply code, never the server's own words or address. Those
 * describe the operator's set-up ("connect ECONNREFUSED 10.0.0.5:587", a relay's internal name
 * in its reply); notify's log has them.
 */
export function sendFailureWords(err: unknown): string {
  const { command, responseCode } = (err ?? {}) as { command?: unknown; responseCode?: unknown };
  const code = typeof responseCode === 'number' ? responseCode : null;
  if (code !== null && command === 'RCPT TO') {
    if (mailboxGone(err)) return `SMTP ${code}: the mail server says this mailbox does not exist`;
    if (recipientRefusedForGood(err)) return `SMTP ${code}: the mail server refuses this address for good`;
    if (code < 500) return `SMTP ${code}: the mail server cannot take mail for this address right now`;
  }
  if (code !== null && command === 'DATA') {
    if (messageTooLarge(err)) return `SMTP ${code}: the mail server refuses this message as too large`;
    return code >= 500 ? `SMTP ${code}: the mail server refuses this message` : `SMTP ${code}: the mail server did not take this message for now`;
  }
  if (code !== null) return `SMTP ${code}: the service's mail server did not take the message${typeof command === 'string' ? ` (at ${command.split(' ')[0]})` : ''}`;
  if (err instanceof SendTimeoutError) return `SMTP: ${err.message}`;
  return "SMTP: the service's mail server could not be reached, or stopped answering";
}

/**
 * The mail server failed, not this recipient or this message: it could not be reached, did not
 * answer in time, dropped the connection, or refused something every message needs (the
 * connection, the login, MAIL FROM). Only a reply to RCPT TO or to DATA is about one message;
 * anything else, each other message of the run meets too.
 */
export function mailServerFailed(err: unknown): boolean {
  const { command, responseCode } = (err ?? {}) as { command?: unknown; responseCode?: unknown };
  return !(typeof responseCode === 'number' && (command === 'RCPT TO' || command === 'DATA'));
}
