/**
 * Short-lived handoffs from a form's POST to the GET page it redirects to (POST-redirect-GET):
 * a reload or Back then repeats a GET, never the POST (which created a second subscription and
 * sent a second confirmation mail, or a second webhook with a new secret).
 *
 * What a redirect cannot carry in its URL is kept here, in this process's memory, under an
 * unguessable id (128 random bits) that only the redirect's Location names:
 *
 *   - `created`: what creating a subscription answered. A webhook's signing secret and manage
 *     link are shown ONCE: the first GET takes them (they are deleted from memory as it reads
 *     them; a tombstone says "already shown" to a reload until the entry expires). They are never
 *     written anywhere in clear — the subscription store keeps the secret only to sign with, and
 *     the manage token hashed. An e-mail subscription's page holds no secret (where the link went,
 *     until when): a reload shows it again.
 *   - `draft`: the channel fields typed before pressing Preview (e-mail address, webhook URL —
 *     a Slack webhook URL is its own secret —, cadence), so they survive the preview without
 *     going into its URL, the history or a shared cache.
 *
 * Entries expire (minutes), and the tables are bounded (the oldest go first), so memory cannot be
 * filled by posting. Drafts and creations have a table each: a draft costs one press of Preview,
 * while creations are bounded by the creation limits; in one table, a caller pressing Preview
 * 10,000 times pushed out a webhook's creation before its page was shown, its secret lost.
 *
 * One process's memory: behind a load balancer the GET that follows a 303 must reach the same
 * replica, as it does over the kept-alive connection the browser follows a redirect on; when it
 * does not (or the entry expired), the page says so instead of guessing.
 */
import { randomBytes } from 'node:crypto';

export interface CreatedHandoff {
  kind: 'created';
  channel: 'email' | 'webhook';
  /** Webhooks: shown once. */
  manage_url: string | null;
  secret: string | null;
  /** E-mail: where the confirmation link went and until when it works. */
  confirmation: { sent_to: string; expires_at: string } | null;
}

export interface DraftHandoff {
  kind: 'draft';
  channel: string;
  email: string;
  url: string;
  cadence: string;
}

export type Handoff = CreatedHandoff | DraftHandoff;

interface Entry {
  value: Handoff | null;
  /** A one-time value was read: its page says so to a reload. */
  taken: boolean;
  expiresAt: number;
}

export const CREATED_TTL_MS = 15 * 60_000;
export const DRAFT_TTL_MS = 60 * 60_000;
const MAX_ENTRIES = 10_000;
const ID_SHAPE = /^[A-Za-z0-9_-]{22}$/;

export class Handoffs {
  readonly #tables: Readonly<Record<Handoff['kind'], Map<string, Entry>>> = { created: new Map(), draft: new Map() };
  readonly #now: () => number;
  #lastSweep = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Keeps a value for `ttlMs` and returns its id. */
  put(value: Handoff, ttlMs: number): string {
    const now = this.#now();
    // Expired entries are swept at most once a minute (a read drops an expired one it meets).
    if (now - this.#lastSweep >= 60_000) {
      this.#lastSweep = now;
      for (const entries of Object.values(this.#tables)) for (const [id, entry] of entries) if (entry.expiresAt <= now) entries.delete(id);
    }
    const entries = this.#tables[value.kind];
    while (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    const id = randomBytes(16).toString('base64url');
    entries.set(id, { value, taken: false, expiresAt: now + ttlMs });
    return id;
  }

  /**
   * The value under `id`: `taken` when a one-time value was already read, null when there is
   * none (unknown, expired, another process's). A webhook's creation (its secret) is handed out
   * once: this read deletes it — unless `take` is false (a HEAD, which shows nothing and must
   * change nothing: a link checker's HEAD took the secret before the browser's GET could show it).
   */
  read(id: string | undefined, take = true): Handoff | 'taken' | null {
    if (id === undefined || !ID_SHAPE.test(id)) return null;
    const entries = Object.values(this.#tables).find((table) => table.has(id));
    const entry = entries?.get(id);
    if (!entries || !entry || entry.expiresAt <= this.#now()) {
      entries?.delete(id);
      return null;
    }
    if (entry.taken || entry.value === null) return 'taken';
    const value = entry.value;
    if (take && value.kind === 'created' && value.secret !== null) {
      entry.value = null;
      entry.taken = true;
    }
    return value;
  }
}
