/**
 * What the subscription service refuses, independent of HTTP: the JSON API maps these to its
 * error shape (api/pulse/routes.ts), the web pages to a message next to the field.
 */

/** Bad input: names the field (dotted path, e.g. `filter.min_risk`). */
export class PulseInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'PulseInputError';
    this.field = field;
  }
}

/** An unknown, expired or revoked token. */
export class PulseNotFoundError extends Error {
  constructor(message = 'No subscription for this link: it may have expired, or the subscription was deleted.') {
    super(message);
    this.name = 'PulseNotFoundError';
  }
}

/** An abuse limit: too many creations from this caller or for this address. */
export class PulseLimitError extends Error {
  readonly scope: string;
  readonly limit: number;
  readonly retryAfterSeconds: number;
  constructor(scope: string, limit: number, retryAfterSeconds: number, message: string) {
    super(message);
    this.name = 'PulseLimitError';
    this.scope = scope;
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Something the service needs is down (the SMTP server): nothing was stored; try again later. */
export class PulseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PulseUnavailableError';
  }
}
