/**
 * Kprobes, mirroring kernel/kprobes.c and arch/x86/kernel/kprobes/{core,ftrace}.c of Linux 6.1:
 *
 *  - kprobe_table: 64 buckets, hash_ptr(addr, KPROBE_HASH_BITS=6) = (addr * GOLDEN_RATIO_64) >> 58,
 *    new probes at the bucket head; get_kprobe(addr)
 *  - register_kprobe(): symbol+offset or address (both/neither -EINVAL, unknown symbol -ENOENT),
 *    re-registration -EINVAL, not core kernel text -EINVAL, kprobe blacklist -EINVAL, inside the
 *    5-byte fentry call -EILSEQ; only KPROBE_FLAG_DISABLED accepted from the caller
 *  - a probe on a function's fentry site is KPROBE_FLAG_FTRACE and is armed through
 *    kprobe_ftrace_ops (or kprobe_ipmodify_ops when it has a post_handler) with
 *    ftrace_set_filter_ip; other probes are int3 probes
 *  - aggregate probes (aggr_pre_handler / aggr_post_handler) when two probes share an address
 *  - kprobe_ftrace_handler / int3 handler: current_kprobe per CPU, re-entry bumps nmissed
 *  - disable/enable, global arm/disarm (debugfs kprobes/enabled)
 *  - kretprobes on rethook (CONFIG_KRETPROBE_ON_RETHOOK=y in Debian 6.1): maxactive default
 *    max(10, 2*num_possible_cpus()), instance pool, entry_handler, arch_rethook_trampoline, nmissed,
 *    __switch_to blacklisted, data_size > 4096 -E2BIG, not at function entry -EINVAL.
 *
 * 6.1 has no per-probe fault_handler (removed in 5.14). A JS handler that throws is treated as a
 * fault inside the handler: it is counted in `faults`, `faultHandler` (simulation hook) is told,
 * and the probe's state is restored so the kernel keeps running.
 */
import { CpuContext, PtRegs, RetFrame } from './current';
import { E2BIG, EINVAL, EILSEQ, ENOENT } from './errno';
import {
  FtraceOps, FTRACE_OPS_FL_IPMODIFY, FTRACE_OPS_FL_SAVE_REGS, MCOUNT_INSN_SIZE, ftraceLocation,
  ftraceSetFilterIp, registerFtraceFunction, unregisterFtraceFunction, setInt3Handler, siteState,
  pushReturnHook, ftraceTestRecursionTrylock, ftraceHitFn, TRACE_FTRACE_START, ftraceTestRecursionUnlock, recordOfFunction,
  ftraceSetSiteCall, FtraceSiteCall,
} from './ftrace';
import {
  addrToBigInt, isKernelText, symbolCount, kallsymsLookupName, lookupAddr, symbolAddr, withinKprobeBlacklist,
} from './kallsyms';

export const KPROBE_HASH_BITS = 6;
export const KPROBE_TABLE_SIZE = 1 << KPROBE_HASH_BITS;
export const KPROBE_FLAG_GONE = 1;
export const KPROBE_FLAG_DISABLED = 2;
export const KPROBE_FLAG_OPTIMIZED = 4;
export const KPROBE_FLAG_FTRACE = 8;
export const KPROBE_FLAG_ON_FUNC_ENTRY = 16;
export const KRETPROBE_MAX_DATA_SIZE = 4096;
const GOLDEN_RATIO_64 = 0x61c8864680b583ebn;
const MASK64 = (1n << 64n) - 1n;
const INSN_SIZE_FENTRY = 5; // MCOUNT_INSN_SIZE

/** hash_ptr(ptr, bits) on 64-bit: hash_64_generic(). */
export function hashPtr(addr: number, bits: number): number {
  return Number(((addrToBigInt(addr) * GOLDEN_RATIO_64) & MASK64) >> BigInt(64 - bits));
}

export type KprobePreHandler = (p: Kprobe, regs: PtRegs, ctx: CpuContext) => number | void;
export type KprobePostHandler = (p: Kprobe, regs: PtRegs, flags: number, ctx: CpuContext) => void;
export type KretprobeHandler = (ri: KretprobeInstance, regs: PtRegs, ctx: CpuContext) => number | void;

let kprobeNums = 0;
let nextObjAddr = 0xffffffffc0a00000n; // module-space addresses for probe objects (introspection)
function allocObjAddr(size: number): bigint {
  const a = nextObjAddr;
  nextObjAddr += BigInt((size + 63) & ~63);
  return a;
}

/** struct kprobe. Fill symbolName/offset or addr and handlers, then registerKprobe(). */
export class Kprobe {
  addr: number | null = null;
  symbolName: string | null = null;
  offset = 0;
  preHandler: KprobePreHandler | null = null;
  postHandler: KprobePostHandler | null = null;
  /** simulation hook: a handler threw (there is no fault_handler in 6.1) */
  faultHandler: ((p: Kprobe, err: unknown, ctx: CpuContext) => void) | null = null;
  flags = 0;
  nmissed = 0;
  faults = 0;
  /** children when this is an aggregator (aggr_kprobe); null otherwise */
  list: Kprobe[] | null = null;
  /** this is an aggregator (pre_handler == aggr_pre_handler) */
  isAggr = false;
  /** names of the kernel handler functions, for crash-style output */
  preHandlerName = '';
  postHandlerName = '';
  /** address of this struct (for introspection, like 0xffffffffa07b5f40 in crash) */
  readonly objAddr: bigint;
  /** the ftrace ops this probe was armed through */
  armedOps: FtraceOps | null = null;
  /** hits seen (handlers run) — a simulation statistic, like trace_kprobe's nhit */
  nhit = 0;
  /** the kretprobe embedding this kprobe (container_of), or null */
  kret: Kretprobe | null = null;
  /** number of this probe (> 0) for the per-CPU current_kprobe slots */
  readonly num: number;
  constructor(init?: Partial<Pick<Kprobe, 'addr' | 'symbolName' | 'offset' | 'preHandler' | 'postHandler' | 'flags' | 'faultHandler'>>) {
    Object.assign(this, init);
    this.objAddr = allocObjAddr(96);
    this.num = ++kprobeNums;
  }
}

/** struct kretprobe_instance (rethook node + data[data_size]); also the return hook itself. */
export class KretprobeInstance implements RetFrame {
  readonly rp: Kretprobe;
  /** function id the instance is hooked on (RetFrame.fn) */
  fn = -1;
  /** regs->ip seen at entry */
  entryIp = 0;
  task: CpuContext['task'] | null = null;
  /** on its kretprobe's in-use list */
  hooked = false;
  /** the real return address saved by rethook_hook() */
  retAddr = 0;
  /** entry-to-return private data (data[]), data_size bytes in the kernel */
  data: Record<string, unknown> = {};
  readonly objAddr: bigint;
  constructor(rp: Kretprobe) {
    this.rp = rp;
    this.objAddr = allocObjAddr(64 + rp.dataSize);
  }
  /** rethook trampoline -> kretprobe_rethook_handler() */
  run(regs: PtRegs, ctx: CpuContext): void {
    regs.ip = this.entryIp;
    regs.parentIp = this.retAddr;
    kretprobeRethookHandler(this.rp, this, regs, ctx);
  }
}

/** The in-use instances of a kretprobe: a flag on each instance and a count (no hashing per hit). */
export class InstanceSet {
  size = 0;
  add(ri: KretprobeInstance): void {
    if (!ri.hooked) { ri.hooked = true; this.size++; }
  }
  delete(ri: KretprobeInstance): boolean {
    if (!ri.hooked) return false;
    ri.hooked = false;
    this.size--;
    return true;
  }
  has(ri: KretprobeInstance): boolean {
    return ri.hooked;
  }
}

/** struct kretprobe. */
export class Kretprobe {
  readonly kp: Kprobe;
  handler: KretprobeHandler | null;
  entryHandler: KretprobeHandler | null;
  maxactive: number;
  nmissed = 0;
  dataSize: number;
  /** rethook pool: free instances */
  freeInstances: KretprobeInstance[] = [];
  /** instances hooked on a task's return path */
  readonly inUse = new InstanceSet();
  handlerName = '';
  entryHandlerName = '';
  /** between a successful register_kretprobe() and unregister_kretprobe() */
  registered = false;
  constructor(init: { symbolName?: string; addr?: number; offset?: number; handler?: KretprobeHandler | null;
    entryHandler?: KretprobeHandler | null; maxactive?: number; dataSize?: number }) {
    this.kp = new Kprobe({ symbolName: init.symbolName ?? null, addr: init.addr ?? null, offset: init.offset ?? 0 });
    this.handler = init.handler ?? null;
    this.entryHandler = init.entryHandler ?? null;
    this.maxactive = init.maxactive ?? 0;
    this.dataSize = init.dataSize ?? 0;
    kretOf.set(this.kp, this);
    this.kp.kret = this;
  }
}

const kretOf = new WeakMap<Kprobe, Kretprobe>();

// ---------------------------------------------------------------- state

const table: Kprobe[][] = Array.from({ length: KPROBE_TABLE_SIZE }, () => []);
/** addr -> the probe in kprobe_table (same answer as walking the bucket; kept for hit-path speed) */
const byAddr = new Map<number, Kprobe>();
/**
 * function id -> the probe at that function's entry address (byAddr for sym+0 addresses, indexed
 * by the id the fentry site reports: addresses are not small integers, ids are)
 */
let byFn: (Kprobe | undefined)[] = [];

function setByAddr(addr: number, p: Kprobe | null): void {
  if (p) byAddr.set(addr, p); else byAddr.delete(addr);
  const pos = lookupAddr(addr);
  if (pos && pos.offset === 0) {
    // packed (not sparse) so the hit path indexes an array, not a dictionary
    if (byFn.length <= pos.id) byFn = byFn.concat(new Array<Kprobe | undefined>(Math.max(pos.id + 1, symbolCount()) - byFn.length).fill(undefined));
    byFn[pos.id] = p ?? undefined;
    // the fentry site's call: kprobe_ftrace_handler with this lookup done
    ftraceSetSiteCall(pos.id, p ? new KprobeSiteCall(p) : null);
  }
}

/**
 * per-CPU current_kprobe, NR_CPUS slots holding the running probe's `num` (0: none): numbers,
 * so setting and clearing it on every hit stores no pointer; `live` maps numbers back to the
 * probes that can be running (registered probes, their aggregators and kretprobes' kprobes)
 */
const currentKprobe = new Int32Array(8192);
const live = new Map<number, Kprobe>();
let allDisarmed = false;
let numPossibleCpus = 2;

/** num_possible_cpus() of the simulated machine (used for the kretprobe maxactive default). */
export function setNumPossibleCpus(n: number): void {
  if (!(n >= 1)) throw new RangeError('num_possible_cpus must be >= 1');
  numPossibleCpus = n;
}

/** Default maxactive as register_kretprobe() computes it (CONFIG_PREEMPTION=y build). */
export function defaultMaxactive(): number {
  return Math.max(10, 2 * numPossibleCpus);
}

export const kprobeFtraceOps = new FtraceOps('kprobe_ftrace_ops', kprobeFtraceHandler, FTRACE_OPS_FL_SAVE_REGS, 'kprobe_ftrace_handler');
export const kprobeIpmodifyOps = new FtraceOps('kprobe_ipmodify_ops', kprobeFtraceHandler,
  FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY, 'kprobe_ftrace_handler');
const armedCount = new Map<FtraceOps, number>([[kprobeFtraceOps, 0], [kprobeIpmodifyOps, 0]]);

/** The 64 buckets (read-only view): bucket i lists probes head-first. */
/** How many probe points the kprobe table holds (an aggregator counts once). */
export function kprobesRegistered(): number {
  return byAddr.size;
}

export function kprobeTable(): readonly (readonly Kprobe[])[] {
  return table;
}

export function kprobeRunning(cpu: number): Kprobe | null {
  const n = currentKprobe[cpu];
  return n ? live.get(n) ?? null : null;
}

export function isAggrKprobe(p: Kprobe): boolean {
  return p.isAggr;
}

export function kprobeDisabled(p: Kprobe): boolean {
  return (p.flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE)) !== 0;
}

/** get_kprobe(addr): the probe (or aggregator) at addr. */
export function getKprobe(addr: number): Kprobe | null {
  return byAddr.get(addr) ?? null;
}

/** get_kprobe() the way the kernel does it: walk bucket hash_ptr(addr, 6). */
export function getKprobeFromTable(addr: number): Kprobe | null {
  for (const p of table[hashPtr(addr, KPROBE_HASH_BITS)]) if (p.addr === addr) return p;
  return null;
}

/** Kretprobe owning a kprobe (kp embedded in a kretprobe), or null. */
export function kretprobeOf(p: Kprobe): Kretprobe | null {
  return kretOf.get(p) ?? null;
}

interface ResolvedAddr { addr: number; onFuncEntry: boolean }

/** _kprobe_addr(): resolve symbol+offset or address to the probe address. */
function kprobeAddr(p: Kprobe): ResolvedAddr | number {
  if ((p.symbolName !== null && p.addr !== null) || (p.symbolName === null && p.addr === null)) return -EINVAL;
  let addr: number;
  if (p.symbolName !== null) {
    let name = p.symbolName;
    // kprobe_lookup_name() accepts "mod:sym"; only vmlinux is modelled
    if (name.startsWith('vmlinux:')) name = name.slice(8);
    const a = kallsymsLookupName(name);
    if (a === null) return -ENOENT;
    addr = a;
  } else addr = p.addr as number;
  addr += p.offset;
  const pos = lookupAddr(addr);
  if (!pos) return -ENOENT;
  return { addr, onFuncEntry: pos.offset === 0 };
}

function getValid(p: Kprobe): Kprobe | null {
  if (p.addr === null) return null;
  const ap = getKprobe(p.addr);
  if (!ap) return null;
  if (ap === p) return ap;
  if (ap.list && ap.list.includes(p)) return ap;
  return null;
}

function checkAddressSafe(p: Kprobe): number {
  const addr = p.addr as number;
  const floc = ftraceLocation(addr);
  if (floc !== 0 && floc === addr) p.flags |= KPROBE_FLAG_FTRACE;
  if (!isKernelText(addr)) return -EINVAL;
  if (withinKprobeBlacklist(addr)) return -EINVAL;
  // arch_prepare_kprobe -> can_probe(): inside the 5-byte fentry call is not an insn boundary
  const pos = lookupAddr(addr);
  if (pos) {
    const rec = recordOfFunction(pos.id);
    if (rec && addr > rec.ip && addr < rec.ip + MCOUNT_INSN_SIZE) return -EILSEQ;
  }
  return 0;
}

function fnAt(addr: number): number {
  const p = lookupAddr(addr);
  return p && p.offset === 0 ? p.id : -1;
}

const int3Sites = new Map<number, number>(); // addr -> count of armed int3 probes (mid-function)

function armKprobe(p: Kprobe): number {
  const addr = p.addr as number;
  if (p.flags & KPROBE_FLAG_FTRACE) {
    const ops = p.postHandler ? kprobeIpmodifyOps : kprobeFtraceOps;
    let r = ftraceSetFilterIp(ops, addr, false, false);
    if (r < 0) return r;
    const cnt = armedCount.get(ops) ?? 0;
    if (cnt === 0) {
      r = registerFtraceFunction(ops);
      if (r < 0) { ftraceSetFilterIp(ops, addr, true, false); return r; }
    }
    armedCount.set(ops, cnt + 1);
    p.armedOps = ops;
    return 0;
  }
  const fn = fnAt(addr);
  if (fn >= 0) siteState[fn] |= 2;
  int3Sites.set(addr, (int3Sites.get(addr) ?? 0) + 1);
  return 0;
}

function disarmKprobe(p: Kprobe): void {
  const addr = p.addr as number;
  if (p.flags & KPROBE_FLAG_FTRACE) {
    const ops = p.armedOps;
    if (!ops) return;
    const cnt = armedCount.get(ops) ?? 0;
    if (cnt === 1) unregisterFtraceFunction(ops);
    armedCount.set(ops, Math.max(0, cnt - 1));
    ftraceSetFilterIp(ops, addr, true, false);
    p.armedOps = null;
    return;
  }
  const n = (int3Sites.get(addr) ?? 0) - 1;
  if (n <= 0) {
    int3Sites.delete(addr);
    const fn = fnAt(addr);
    if (fn >= 0) siteState[fn] &= ~2;
  } else int3Sites.set(addr, n);
}

function isArmed(p: Kprobe): boolean {
  return p.armedOps !== null || int3Sites.has(p.addr as number) && !(p.flags & KPROBE_FLAG_FTRACE) && !kprobeDisabled(p) && !allDisarmed;
}

/** register_kprobe(): 0 or a negative errno. */
export function registerKprobe(p: Kprobe): number {
  const r = kprobeAddr(p);
  if (typeof r === 'number') return r;
  const symbolName = p.symbolName;
  const oldAddr = p.addr;
  p.addr = r.addr;
  if (getValid(p)) return -EINVAL; // warn_kprobe_rereg
  p.flags &= KPROBE_FLAG_DISABLED;
  p.nmissed = 0;
  p.list = null;
  const safe = checkAddressSafe(p);
  if (safe) { p.addr = oldAddr; p.flags &= KPROBE_FLAG_DISABLED; return safe; }
  void symbolName;
  if (r.onFuncEntry) p.flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
  const old = getKprobe(r.addr);
  if (old) {
    const ra = registerAggrKprobe(old, p);
    if (ra === 0) live.set(p.num, p);
    return ra;
  }
  table[hashPtr(r.addr, KPROBE_HASH_BITS)].unshift(p);
  setByAddr(r.addr, p);
  if (!allDisarmed && !kprobeDisabled(p)) {
    const a = armKprobe(p);
    if (a) { removeFromBucket(p); return a; }
  }
  live.set(p.num, p);
  return 0;
}

function removeFromBucket(p: Kprobe): void {
  const b = table[hashPtr(p.addr as number, KPROBE_HASH_BITS)];
  const i = b.indexOf(p);
  if (i >= 0) b.splice(i, 1);
  if (byAddr.get(p.addr as number) === p) setByAddr(p.addr as number, null);
  live.delete(p.num);
}

function aggrPreHandler(ap: Kprobe, regs: PtRegs, ctx: CpuContext): number {
  for (const kp of ap.list ?? []) {
    if (kprobeDisabled(kp) || !kp.preHandler) continue;
    kp.nhit++;
    if (callPre(kp, regs, ctx)) return 1;
  }
  return 0;
}

function aggrPostHandler(ap: Kprobe, regs: PtRegs, flags: number, ctx: CpuContext): void {
  for (const kp of ap.list ?? []) {
    if (kprobeDisabled(kp) || !kp.postHandler) continue;
    callPost(kp, regs, flags, ctx);
  }
}

function registerAggrKprobe(orig: Kprobe, p: Kprobe): number {
  let ap = orig;
  if (!orig.isAggr) {
    // alloc_aggr_kprobe + init_aggr_kprobe: the aggregator replaces orig in the hash bucket
    ap = new Kprobe();
    ap.isAggr = true;
    ap.addr = orig.addr;
    ap.flags = orig.flags & ~KPROBE_FLAG_OPTIMIZED;
    ap.preHandler = aggrPreHandler;
    ap.preHandlerName = 'aggr_pre_handler';
    if (orig.postHandler && !(orig.flags & KPROBE_FLAG_GONE)) { ap.postHandler = aggrPostHandler; ap.postHandlerName = 'aggr_post_handler'; }
    ap.list = [orig];
    ap.armedOps = orig.armedOps;
    orig.armedOps = null;
    const b = table[hashPtr(orig.addr as number, KPROBE_HASH_BITS)];
    b[b.indexOf(orig)] = ap;
    setByAddr(orig.addr as number, ap);
    live.set(ap.num, ap);
  }
  // copy_kprobe + add_new_kprobe: list_add_rcu = insert at the head
  p.flags = (p.flags & ~KPROBE_FLAG_FTRACE) | (ap.flags & KPROBE_FLAG_FTRACE);
  (ap.list as Kprobe[]).unshift(p);
  if (p.postHandler && !ap.postHandler) { ap.postHandler = aggrPostHandler; ap.postHandlerName = 'aggr_post_handler'; }
  if (kprobeDisabled(ap) && !kprobeDisabled(p)) {
    ap.flags &= ~KPROBE_FLAG_DISABLED;
    if (!allDisarmed) {
      const r = armKprobe(ap);
      if (r) { ap.flags |= KPROBE_FLAG_DISABLED; (ap.list as Kprobe[]).shift(); return r; }
    }
  }
  return 0;
}

/** unregister_kprobe(): 0, or -EINVAL when p is not registered (the kernel returns void). */
export function unregisterKprobe(p: Kprobe): number {
  const ap = getValid(p);
  if (!ap) return -EINVAL;
  if (ap === p) {
    if (!kprobeDisabled(p) && !allDisarmed) disarmKprobe(p);
    else if (p.armedOps) disarmKprobe(p);
    removeFromBucket(p);
  } else {
    const list = ap.list as Kprobe[];
    list.splice(list.indexOf(p), 1);
    if (list.length === 0) {
      if (ap.armedOps || (!kprobeDisabled(ap) && !allDisarmed)) disarmKprobe(ap);
      removeFromBucket(ap);
    } else {
      if (p.postHandler && !list.some((k) => k.postHandler) && !(ap.flags & KPROBE_FLAG_FTRACE)) {
        ap.postHandler = null; ap.postHandlerName = '';
      }
      if (list.every(kprobeDisabled) && !kprobeDisabled(ap)) {
        ap.flags |= KPROBE_FLAG_DISABLED;
        if (!allDisarmed) disarmKprobe(ap);
      }
    }
  }
  p.flags &= ~(KPROBE_FLAG_FTRACE | KPROBE_FLAG_ON_FUNC_ENTRY);
  live.delete(p.num);
  return 0;
}

/** disable_kprobe(): 0 or -EINVAL. */
export function disableKprobe(p: Kprobe): number {
  const orig = getValid(p);
  if (!orig) return -EINVAL;
  if (!kprobeDisabled(p)) {
    if (p !== orig) p.flags |= KPROBE_FLAG_DISABLED;
    if (p === orig || (orig.list as Kprobe[]).every(kprobeDisabled)) {
      if (!kprobeDisabled(orig) && !allDisarmed) disarmKprobe(orig);
      orig.flags |= KPROBE_FLAG_DISABLED;
    }
  }
  return 0;
}

/** enable_kprobe(): 0 or -EINVAL. */
export function enableKprobe(p: Kprobe): number {
  const ap = getValid(p);
  if (!ap) return -EINVAL;
  if (p.flags & KPROBE_FLAG_GONE) return -EINVAL;
  if (p !== ap) p.flags &= ~KPROBE_FLAG_DISABLED;
  if (kprobeDisabled(ap)) {
    ap.flags &= ~KPROBE_FLAG_DISABLED;
    if (!allDisarmed) {
      const r = armKprobe(ap);
      if (r) { p.flags |= KPROBE_FLAG_DISABLED; if (p !== ap) ap.flags |= KPROBE_FLAG_DISABLED; return r; }
    }
  }
  return 0;
}

/** debugfs kprobes/enabled: 0 disarms every probe (per-probe DISABLED kept), 1 re-arms. */
export function setKprobesEnabled(on: boolean): void {
  if (on === !allDisarmed) return;
  for (const b of table) for (const p of b) {
    if (kprobeDisabled(p)) continue;
    if (on) { allDisarmed = false; armKprobe(p); } else disarmKprobe(p);
  }
  allDisarmed = !on;
}

export function kprobesEnabled(): boolean {
  return !allDisarmed;
}

/** kprobes_inc_nmissed_count(). */
function incNmissed(p: Kprobe): void {
  if (!p.isAggr) { p.nmissed++; return; }
  for (const k of p.list ?? []) k.nmissed++;
}

function fault(p: Kprobe, err: unknown, ctx: CpuContext): void {
  p.faults++;
  if (p.faultHandler) p.faultHandler(p, err, ctx);
}

function callPre(p: Kprobe, regs: PtRegs, ctx: CpuContext): number {
  try {
    return (p.preHandler as KprobePreHandler)(p, regs, ctx) ? 1 : 0;
  } catch (e) {
    fault(p, e, ctx);
    return 1;
  }
}

function callPost(p: Kprobe, regs: PtRegs, flags: number, ctx: CpuContext): void {
  try {
    (p.postHandler as KprobePostHandler)(p, regs, flags, ctx);
  } catch (e) {
    fault(p, e, ctx);
  }
}

function runProbe(p: Kprobe, regs: PtRegs, ctx: CpuContext, ftrace: boolean): void {
  const cpu = ctx.cpu;
  if (currentKprobe[cpu] !== 0) { incNmissed(p); return; }
  const origIp = regs.ip;
  regs.ip = (p.addr as number) + 1; // as if the int3 just trapped
  currentKprobe[cpu] = p.num;
  // try/catch rather than finally on the hit path (handler errors are caught by callPre/callPost)
  try {
    if (!p.isAggr) p.nhit++;
    if (p.preHandler === null || callPre(p, regs, ctx) === 0) {
      // past the probed instruction (the post handler sees it), then back
      if (p.postHandler !== null) runPost(p, regs, ctx, ftrace);
      regs.ip = origIp;
    }
  } catch (e) {
    currentKprobe[cpu] = 0;
    throw e;
  }
  currentKprobe[cpu] = 0;
}

function runPost(p: Kprobe, regs: PtRegs, ctx: CpuContext, ftrace: boolean): void {
  regs.ip = (p.addr as number) + (ftrace ? INSN_SIZE_FENTRY : 1);
  callPost(p, regs, 0, ctx);
}

// Module-local copies of the ftrace functions the hit path calls: imported bindings compile to
// property loads on the exporting module's object.
const recursionTrylock = ftraceTestRecursionTrylock, recursionUnlock = ftraceTestRecursionUnlock,
  hitFnNow = ftraceHitFn, pushRetHook = pushReturnHook, addrOf = symbolAddr;
const FTRACE_START = TRACE_FTRACE_START;

/** kprobe_ftrace_handler(ip, parent_ip, ops, fregs) — the func of kprobe_ftrace_ops. */
export function kprobeFtraceHandler(ip: number, _parentIp: number, _op: FtraceOps, regs: PtRegs, ctx: CpuContext): void {
  const bit = recursionTrylock(ctx, FTRACE_START);
  if (bit < 0) return;
  try {
    const fn = hitFnNow();
    let p = fn >= 0 ? byFn[fn] : undefined;
    if (p === undefined || p.addr !== ip) p = byAddr.get(ip);
    if (p && !kprobeDisabled(p)) runProbe(p, regs, ctx, true);
  } catch (e) {
    recursionUnlock(ctx, bit);
    throw e;
  }
  recursionUnlock(ctx, bit);
}

/**
 * kprobe_ftrace_handler() at one function entry: the probe (or aggregator) registered at that
 * address, looked up once when it was put in kprobe_table (setByAddr keeps it current). The
 * ftrace seam calls it instead of the ops func while kprobe_ftrace_ops (or kprobe_ipmodify_ops)
 * is the only ops (see FtraceSiteCall): same recursion guard, disabled check, current_kprobe and
 * nmissed accounting, handlers, ip adjustments as the generic handler.
 */
class KprobeSiteCall implements FtraceSiteCall {
  readonly func = kprobeFtraceHandler;
  constructor(readonly p: Kprobe) {}
  call(_ip: number, _parentIp: number, regs: PtRegs, ctx: CpuContext): void {
    const bit = recursionTrylock(ctx, FTRACE_START);
    if (bit < 0) return;
    const p = this.p;
    try {
      if (!(p.flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE))) runProbe(p, regs, ctx, true);
    } catch (e) {
      recursionUnlock(ctx, bit);
      throw e;
    }
    recursionUnlock(ctx, bit);
  }
}

/** int3 path for probes not on an ftrace site: fn entry (from the seam) or kprobeHitAddress(). */
function int3Handler(fn: number, regs: PtRegs, ctx: CpuContext): void {
  let p = byFn[fn];
  if (p === undefined || p.addr !== regs.ip) p = byAddr.get(addrOf(fn));
  if (!p || kprobeDisabled(p) || (p.flags & KPROBE_FLAG_FTRACE)) return;
  runProbe(p, regs, ctx, false);
}
setInt3Handler(int3Handler);

/**
 * The workload reached an instruction inside a function body (addr = sym+off). Triggers an
 * armed int3 kprobe there, if any. Costs one Map lookup when no probe is armed at addr.
 */
/** Addresses with an armed int3 (mid-function) kprobe: 0 lets callers skip building registers. */
export function int3SiteCount(): number {
  return int3Sites.size;
}

/** An int3 kprobe is armed at `addr`. */
export function int3SiteArmed(addr: number): boolean {
  return int3Sites.has(addr);
}

export function kprobeHitAddress(addr: number, ctx: CpuContext, regs: PtRegs): void {
  if (!int3Sites.has(addr)) return;
  const p = getKprobe(addr);
  if (!p || kprobeDisabled(p) || (p.flags & KPROBE_FLAG_FTRACE)) return;
  runProbe(p, regs, ctx, false);
}

// ---------------------------------------------------------------- kretprobes

export const KRETPROBE_TRAMPOLINE = 'arch_rethook_trampoline';

/** pre_handler_kretprobe(). */
function preHandlerKretprobe(p: Kprobe, regs: PtRegs, ctx: CpuContext): number {
  const rp = p.kret as Kretprobe;
  const ri = rp.freeInstances.pop();
  if (!ri) { rp.nmissed++; return 0; }
  ri.task = ctx.task;
  // ri->data is per-instance scratch the entry handler fills (not cleared, as in the kernel)
  if (rp.entryHandler) {
    let skip: number | void = 0;
    try { skip = rp.entryHandler(ri, regs, ctx); } catch (e) { fault(p, e, ctx); skip = 1; }
    if (skip) { rp.freeInstances.push(ri); return 0; }
  }
  // rethook_hook(): remember the real return address, return to the trampoline instead
  ri.retAddr = regs.parentIp;
  rp.inUse.add(ri);
  ri.entryIp = regs.ip;
  pushRetHook(ctx, ri);
  return 0;
}

/** kretprobe_rethook_handler() + rethook recycle. */
function kretprobeRethookHandler(rp: Kretprobe, ri: KretprobeInstance, regs: PtRegs, ctx: CpuContext): void {
  rp.inUse.delete(ri);
  const registered = rp.registered;
  if (rp.handler && registered) {
    currentKprobe[ctx.cpu] = rp.kp.num;
    try { rp.handler(ri, regs, ctx); } catch (e) { rethookFault(rp, ri, registered, e, ctx); }
  }
  rethookRecycle(rp, ri, registered, ctx);
}
/** a kretprobe handler threw: count it; recycle the instance even if the fault hook throws */
function rethookFault(rp: Kretprobe, ri: KretprobeInstance, registered: boolean, e: unknown, ctx: CpuContext): void {
  try {
    fault(rp.kp, e, ctx);
  } catch (e2) {
    rethookRecycle(rp, ri, registered, ctx);
    throw e2;
  }
}
function rethookRecycle(rp: Kretprobe, ri: KretprobeInstance, registered: boolean, ctx: CpuContext): void {
  if (currentKprobe[ctx.cpu] === rp.kp.num) currentKprobe[ctx.cpu] = 0;
  ri.task = null;
  if (registered) rp.freeInstances.push(ri);
}

/** register_kretprobe(): 0 or negative errno. */
export function registerKretprobe(rp: Kretprobe): number {
  const r = kprobeAddr(rp.kp);
  if (typeof r === 'number') return r;
  if (!r.onFuncEntry) return -EINVAL; // kprobe_on_func_entry()
  if (rp.kp.addr !== null && getValid(rp.kp)) return -EINVAL;
  const sw = kallsymsLookupName('__switch_to');
  if (sw !== null && r.addr === sw) return -EINVAL; // kretprobe_blacklist[]
  if (rp.dataSize > KRETPROBE_MAX_DATA_SIZE) return -E2BIG;
  rp.kp.preHandler = preHandlerKretprobe;
  rp.kp.preHandlerName = 'pre_handler_kretprobe';
  rp.kp.postHandler = null;
  if (rp.maxactive <= 0) rp.maxactive = defaultMaxactive();
  rp.freeInstances = [];
  const fnId = lookupAddr(r.addr)?.id ?? -1;
  for (let i = 0; i < rp.maxactive; i++) {
    const ri = new KretprobeInstance(rp);
    ri.fn = fnId;
    rp.freeInstances.push(ri);
  }
  rp.nmissed = 0;
  const ret = registerKprobe(rp.kp);
  if (ret) rp.freeInstances = [];
  else rp.registered = true;
  return ret;
}

/** unregister_kretprobe(): in-flight instances are orphaned (their handler no longer runs). */
export function unregisterKretprobe(rp: Kretprobe): number {
  const r = unregisterKprobe(rp.kp);
  if (r) return r;
  rp.registered = false;
  rp.freeInstances = [];
  return 0;
}

export function disableKretprobe(rp: Kretprobe): number {
  return disableKprobe(rp.kp);
}

export function enableKretprobe(rp: Kretprobe): number {
  return enableKprobe(rp.kp);
}

/** Remove every probe and reset the subsystem (tests / end of session). */
export function resetKprobes(): void {
  for (const b of table) {
    for (const p of [...b]) {
      for (const c of p.list ?? [p]) {
        unregisterKprobe(c);
        const rp = kretOf.get(c);
        if (rp) { rp.registered = false; rp.freeInstances = []; }
      }
    }
    b.length = 0;
  }
  byAddr.clear();
  byFn = [];
  currentKprobe.fill(0);
  live.clear();
  int3Sites.clear();
  allDisarmed = false;
  for (const ops of armedCount.keys()) { if (armedCount.get(ops)) unregisterFtraceFunction(ops); armedCount.set(ops, 0); ops.filterHash.clear(); }
}

export { isArmed as kprobeArmed };
