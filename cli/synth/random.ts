/**
 * Seeded randomness for the synthetic corpus. Every random choice goes through an `Rng` made
 * by `rngFor(seed, ...keys)`: the same seed and keys give the same sequence on every run and
 * machine (no Math.random, no clock). Keys name an independent stream (`'plan-kind'`, a CVE
 * index, …), so a writer can regenerate one CVE's details without replaying any other.
 */

/** 32-bit FNV-1a over a string, then avalanche-mixed (murmur3 finaliser). */
function hashString(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const HEX2 = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, '0'));

/** sfc32: small, fast, passes PractRand; state is four 32-bit words. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a >>> 0;
    this.b = b >>> 0;
    this.c = c >>> 0;
    this.d = d >>> 0;
    // Warm up so that nearby seeds (consecutive CVE indices) diverge completely.
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Picks by weight from `[value, weight]` pairs. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, w] of choices) total += w;
    let r = this.float() * total;
    for (const [value, w] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1]![0];
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Geometric count ≥ 1 with the given mean (mean ≥ 1). */
  geometric(mean: number): number {
    const p = 1 / Math.max(1, mean);
    let k = 1;
    while (k < 1000 && !this.chance(p)) k++;
    return k;
  }

  /** `count` characters drawn from `alphabet`. */
  chars(alphabet: string, count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += alphabet[Math.floor(this.float() * alphabet.length)];
    return out;
  }

  /** Lower-case hex string of `count` digits. */
  hex(count: number): string {
    return this.chars('0123456789abcdef', count);
  }

  /** Eight hex digits. */
  hex8(): string {
    const x = this.u32();
    return HEX2[x >>> 24]! + HEX2[(x >>> 16) & 255]! + HEX2[(x >>> 8) & 255]! + HEX2[x & 255]!;
  }

  /** A 40-digit git commit hash. */
  commitHash(): string {
    return this.hex8() + this.hex8() + this.hex8() + this.hex8() + this.hex8();
  }

  /** A random (version 4 shaped) UUID, lower case. */
  uuid(): string {
    const h = this.hex8() + this.hex8() + this.hex8() + this.hex8();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** Distinct sorted sample of `k` items (order kept). */
  sample<T>(items: readonly T[], k: number): T[] {
    const out: T[] = [];
    let needed = Math.min(k, items.length);
    for (let i = 0; i < items.length && needed > 0; i++) {
      if (this.float() * (items.length - i) < needed) {
        out.push(items[i] as T);
        needed--;
      }
    }
    return out;
  }
}

/** The seed's root hash, computed once per corpus. */
export function seedHash(seed: string): number {
  return hashString(seed);
}

/** An independent stream for `keys` under a seed (string keys name streams, numbers index). */
export function rngFor(root: number, ...keys: Array<string | number>): Rng {
  let h1 = root ^ 0x9e3779b9;
  let h2 = mix32(root + 0x7f4a7c15);
  for (const key of keys) {
    if (typeof key === 'number') {
      h1 = mix32(h1 ^ Math.imul(key + 1, 0x9e3779b1));
      h2 = mix32(h2 + Math.imul(key ^ 0x5bd1e995, 0x27d4eb2f));
    } else {
      h1 = hashString(key, h1);
      h2 = hashString(key, h2 ^ 0x68e31da4);
    }
  }
  return new Rng(h1, h2, mix32(h1 ^ h2), mix32(h2 + 0x165667b1));
}

/**
 * Zipf–Mandelbrot sampler over ranks 0..n-1: weight of rank k is 1 / (k + 1 + q)^s. A few
 * ranks carry a large share, most carry almost nothing (the shape of real product and package
 * popularity).
 */
export class ZipfSampler {
  private readonly cdf: Float64Array;

  constructor(n: number, s = 1, q = 0) {
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      total += 1 / Math.pow(k + 1 + q, s);
      this.cdf[k] = total;
    }
    for (let k = 0; k < n; k++) this.cdf[k]! /= total;
  }

  get size(): number {
    return this.cdf.length;
  }

  /** Share of the total weight carried by rank k. */
  share(k: number): number {
    return (this.cdf[k] ?? 0) - (k > 0 ? (this.cdf[k - 1] ?? 0) : 0);
  }

  sample(rng: Rng): number {
    const r = rng.float();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cdf[mid] ?? 1) < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
