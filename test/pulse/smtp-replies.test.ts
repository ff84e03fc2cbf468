/** How notify and the subscribe answers read an SMTP refusal (errors shaped as nodemailer's). */
import { describe, expect, it } from 'vitest';
import { SendTimeoutError } from '../../lib/pulse/mailer.ts';
import { mailboxGone, messageTooLarge, recipientRefusedForGood, sendFailureWords } from '../../lib/pulse/smtp-replies.ts';

const refusal = (command: string, responseCode: number, response: string) => Object.assign(new Error(`Can't send mail: ${response}`), { command, responseCode, response });

describe('SMTP refusals', () => {
  it('a mailbox that does not exist, in a multi-line reply too', () => {
    const gmail = refusal('RCPT TO', 550, '550-5.1.1 The email account that you tried to reach does not exist.\n550 5.1.1 https://support.example');
    expect(mailboxGone(gmail)).toBe(true);
    expect(sendFailureWords(gmail)).toBe('SMTP 550: the mail server says this mailbox does not exist');
    expect(mailboxGone(refusal('RCPT TO', 550, '550 5.1.10 RESOLVER.ADR.RecipientNotFound'))).toBe(true);
  });

  it('a relay refusing for its own reasons is not the address\'s fault', () => {
    const relay = refusal('RCPT TO', 554, '554 5.7.1 <x@example.org>: Relay access denied');
    expect(mailboxGone(relay)).toBe(false);
    expect(recipientRefusedForGood(relay)).toBe(false);
    expect(sendFailureWords(relay)).toBe("SMTP 554: the service's mail server did not take the message (at RCPT)");
  });

  it('too large, by code or by status', () => {
    expect(messageTooLarge(refusal('DATA', 552, '552 Message size exceeds fixed limit'))).toBe(true);
    expect(messageTooLarge(refusal('DATA', 554, '554 5.3.4 Message too big for system'))).toBe(true);
    expect(messageTooLarge(refusal('DATA', 550, '550 5.7.26 Unauthenticated email'))).toBe(false);
  });

  it('no answer within the bound for one message, or no server at all', () => {
    expect(sendFailureWords(new SendTimeoutError(120_000))).toBe('SMTP: the mail server did not take the message within 120000 ms');
    expect(sendFailureWords(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:587'), { code: 'ESOCKET' }))).toBe("SMTP: the service's mail server could not be reached, or stopped answering");
  });
});
