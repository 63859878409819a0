/**
 * struct ftrace_hash (kernel/trace/ftrace.c of Linux 6.1) as an ordered structure: buckets
 * indexed by hash_long(ip, size_bits), entries added at the bucket head. The files that print
 * a hash by walking its buckets (set_graph_function, set_graph_notrace, the function probes of
 * set_ftrace_filter) show its entries in this order, which depends on how the hash was built:
 * a working copy of FTRACE_HASH_DEFAULT_BITS (10) buckets (alloc_and_copy_ftrace_hash()), the
 * records matched added in record order, then __ftrace_hash_move() re-buckets it into
 * fls(count / 2) bits (at most FTRACE_HASH_MAX_BITS, 12).
 */
import { addrToBigInt } from './kallsyms';

export const FTRACE_HASH_DEFAULT_BITS = 10;
export const FTRACE_HASH_MAX_BITS = 12;
const GOLDEN_RATIO_64 = 0x61c8864680b583ebn;
const M64 = (1n << 64n) - 1n;

/** hash_long(ip, bits) on 64-bit (hash_64_generic) */
export function hashLong(ip: number, bits: number): number {
  if (bits <= 0) return 0;
  return Number(((addrToBigInt(ip) * GOLDEN_RATIO_64) & M64) >> BigInt(64 - bits));
}

function fls(x: number): number {
  return x ? 32 - Math.clz32(x) : 0;
}

export class FtraceHash {
  readonly buckets: number[][];
  constructor(readonly bits: number) {
    this.buckets = Array.from({ length: 1 << bits }, () => []);
  }
  get count(): number {
    let n = 0;
    for (const b of this.buckets) n += b.length;
    return n;
  }
  has(ip: number): boolean {
    return this.buckets[hashLong(ip, this.bits)].includes(ip);
  }
  /** add_hash_entry(): head of its bucket (no-op when present) */
  add(ip: number): void {
    const b = this.buckets[hashLong(ip, this.bits)];
    if (!b.includes(ip)) b.unshift(ip);
  }
  remove(ip: number): void {
    const b = this.buckets[hashLong(ip, this.bits)];
    const i = b.indexOf(ip);
    if (i >= 0) b.splice(i, 1);
  }
  /** entries in bucket order (what a walk of the hash prints) */
  entries(): number[] {
    const out: number[] = [];
    for (const b of this.buckets) out.push(...b);
    return out;
  }
  /** alloc_and_copy_ftrace_hash(bits, this) */
  copy(bits = FTRACE_HASH_DEFAULT_BITS): FtraceHash {
    const h = new FtraceHash(bits);
    for (const ip of this.entries()) h.add(ip);
    return h;
  }
  /** __ftrace_hash_move(): the committed hash, sized for its count */
  moved(): FtraceHash {
    const n = this.count;
    const bits = Math.min(fls(n >> 1), FTRACE_HASH_MAX_BITS);
    const h = new FtraceHash(n ? bits : 0);
    for (const ip of this.entries()) h.add(ip);
    return h;
  }
  toSet(): Set<number> {
    return new Set(this.entries());
  }
}
