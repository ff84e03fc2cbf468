/**
 * Capability tokens (PULSE §4): 128 random bits, base64url (22 characters), stored only as their
 * SHA-256. Webhook secrets: 256 random bits, shown once, kept to sign with.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22}$/;

export function newToken(): string {
  return randomBytes(16).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Shape check before any lookup: junk in a URL never reaches the store. */
export function isWellFormedToken(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

export function newId(): string {
  return randomUUID();
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
