/** Seeded PRNG (mulberry32): the only source of randomness in the simulation. */
export class Prng {
  private a: number;
  constructor(seed: number) {
    this.a = (seed >>> 0) ^ 0x9e3779b9;
  }
  /** uniform in [0, 1) */
  next(): number {
    let t = (this.a = (this.a + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** integer in [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** exponential with the given mean */
  exp(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
  fork(): Prng {
    return new Prng(Math.floor(this.next() * 4294967296));
  }
}

/** Deterministic 32-bit hash of an integer (for per-function costs, fake addresses). */
export function hash32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}
