/**
 * Dynamic ftrace, mirroring kernel/trace/ftrace.c of Linux 6.1 on x86_64 (fentry, no IBT):
 *
 *  - one dyn_ftrace record per surviving __mcount_loc entry (init text dropped after boot), with
 *    the 6.1 flag layout (ref count in the low 23 bits, ENABLED/REGS/REGS_EN/.../DISABLED on top);
 *    records whose site is not at a symbol start are FTRACE_FL_DISABLED ("__ftrace_invalid_address___N")
 *  - ftrace_ops with filter/notrace hashes ("empty filter = all", notrace wins), the ops list
 *    ending at ftrace_list_end, register/unregister with -EBUSY rules (already enabled, IPMODIFY
 *    conflict), ftrace_set_filter_ip / ftrace_set_filter / ftrace_set_notrace
 *  - the list dispatcher ftrace_ops_list_func with the per-CPU, per-context recursion guard,
 *    RCU/PID checks, set_ftrace_pid
 *  - callers: function tracer, function_graph (fgraph entry/return with the per-task return
 *    stack, FTRACE_RETFUNC_DEPTH 50), the function profiler.
 *
 * THE SEAM: a call into a simulated kernel function is `kcall(fn, ctx, args, body)` (or
 * kenter/kleave around the body). `fn` is the function's kallsyms id. With nothing attached
 * the cost is one typed-array load and a branch; see README.md.
 */
import { CpuContext, PtRegs, RetFrame, taskState } from './current';
import { readDataText, noteParseTime } from './data';
import { EBUSY, EINVAL, ENODEV, ENOENT } from './errno';
import {
  addrHex as addrHex_, lookupAddr, parseAddr, symbolName, symbolCount, symbolModule,
  moduleMcountSites, firstAliasOf, symbolAddrTable,
} from './kallsyms';
import { filterParseRegex, regexMatch, MATCH_FULL, MATCH_INDEX } from './ftrace_regex';

// ---------------------------------------------------------------- flags (include/linux/ftrace.h, 6.1)
export const FTRACE_OPS_FL_ENABLED = 1 << 0;
export const FTRACE_OPS_FL_DYNAMIC = 1 << 1;
export const FTRACE_OPS_FL_SAVE_REGS = 1 << 2;
export const FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED = 1 << 3;
export const FTRACE_OPS_FL_RECURSION = 1 << 4;
export const FTRACE_OPS_FL_STUB = 1 << 5;
export const FTRACE_OPS_FL_INITIALIZED = 1 << 6;
export const FTRACE_OPS_FL_DELETED = 1 << 7;
export const FTRACE_OPS_FL_ADDING = 1 << 8;
export const FTRACE_OPS_FL_REMOVING = 1 << 9;
export const FTRACE_OPS_FL_MODIFYING = 1 << 10;
export const FTRACE_OPS_FL_ALLOC_TRAMP = 1 << 11;
export const FTRACE_OPS_FL_IPMODIFY = 1 << 12;
export const FTRACE_OPS_FL_PID = 1 << 13;
export const FTRACE_OPS_FL_RCU = 1 << 14;
export const FTRACE_OPS_FL_TRACE_ARRAY = 1 << 15;
export const FTRACE_OPS_FL_PERMANENT = 1 << 16;
export const FTRACE_OPS_FL_DIRECT = 1 << 17;

export const FTRACE_FL_ENABLED = 2 ** 31;
export const FTRACE_FL_REGS = 1 << 30;
export const FTRACE_FL_REGS_EN = 1 << 29;
export const FTRACE_FL_TRAMP = 1 << 28;
export const FTRACE_FL_TRAMP_EN = 1 << 27;
export const FTRACE_FL_IPMODIFY = 1 << 26;
export const FTRACE_FL_DISABLED = 1 << 25;
export const FTRACE_FL_DIRECT = 1 << 24;
export const FTRACE_FL_DIRECT_EN = 1 << 23;
export const FTRACE_REF_MAX = (1 << 23) - 1;
export const MCOUNT_INSN_SIZE = 5;
export const FTRACE_RETFUNC_DEPTH = 50;

/** ops->func(ip, parent_ip, op, fregs): fregs carry the registers; ctx is the simulated CPU. */
export type FtraceFunc = (ip: number, parentIp: number, op: FtraceOps, regs: PtRegs, ctx: CpuContext) => void;

/** struct ftrace_ops. `name` is the kernel symbol of the ops object (for introspection). */
export class FtraceOps {
  name: string;
  func: FtraceFunc;
  /** kernel symbol of func, for crash-style printing */
  funcName: string;
  flags: number;
  next: FtraceOps | null = null;
  /** filter hash: record ips; empty = every function (may be shared: graph_ops uses global_ops') */
  readonly filterHash: Set<number>;
  /** notrace hash: record ips never traced by this ops */
  readonly notraceHash: Set<number>;
  /** ops->private */
  private_: unknown = null;
  /** calls made through this ops (simulation statistic) */
  hits = 0;
  constructor(name: string, func: FtraceFunc, flags = 0, funcName = '', hashes?: { filterHash: Set<number>; notraceHash: Set<number> }) {
    this.name = name;
    this.func = func;
    this.flags = flags;
    this.funcName = funcName || name;
    this.filterHash = hashes ? hashes.filterHash : new Set<number>();
    this.notraceHash = hashes ? hashes.notraceHash : new Set<number>();
  }
}

/** The list terminator: func = ftrace_stub, flags = STUB (6.1: FTRACE_OPS_FL_STUB). */
export const ftraceListEnd = new FtraceOps('ftrace_list_end', () => undefined, FTRACE_OPS_FL_STUB, 'ftrace_stub');

// ---------------------------------------------------------------- records

export interface DynFtrace {
  ip: number;
  /** kallsyms id of the function containing the site */
  fn: number;
  flags: number;
}

const CAP = 1 << 17; // > symbol count; sized without loading any data
/**
 * Hot-path state per function id: bit 0 = the fentry site calls into ftrace (FL_ENABLED),
 * bit 1 = an int3 kprobe sits on the function entry, bit 2 = the site is live and its owner
 * installed a site call (see FtraceSiteCall). 0 = the site is a NOP.
 */
const sites = new Uint8Array(CAP);
export { sites as siteState };
const SITE_FTRACE = 1, SITE_INT3 = 2, SITE_CALL = 4;
/** st of a site reached through ftrace only, with a site call: the direct path */
const SITE_DIRECT = SITE_FTRACE | SITE_CALL;

let records: DynFtrace[] | null = null;
let recByFn: Int32Array | null = null;

function loadRecords(): DynFtrace[] {
  if (records) return records;
  const text = readDataText('mcount.gz');
  const t0 = Date.now();
  records = [];
  recByFn = new Int32Array(Math.max(CAP, symbolCount())).fill(-1);
  let ip = 0;
  let first = true;
  for (const line of text.split('\n')) {
    if (!line) continue;
    ip = first ? parseAddr(line) : ip + parseInt(line, 16);
    first = false;
    const p = lookupAddr(ip);
    const fn = p ? p.id : -1;
    const disabled = !p || p.offset !== 0; // test_for_valid_rec(): offset > FTRACE_MCOUNT_MAX_OFFSET (0)
    records.push({ ip, fn, flags: disabled ? FTRACE_FL_DISABLED : 0 });
    if (!disabled && recByFn[fn] < 0) recByFn[fn] = records.length - 1;
  }
  // loaded modules' __mcount_loc (ftrace_module_init), above every vmlinux site
  for (const mip of moduleMcountSites()) {
    const p = lookupAddr(mip);
    const fn = p ? p.id : -1;
    const disabled = !p || p.offset !== 0;
    records.push({ ip: mip, fn, flags: disabled ? FTRACE_FL_DISABLED : 0 });
    if (!disabled && recByFn[fn] < 0) recByFn[fn] = records.length - 1;
  }
  noteParseTime('mcount.gz', Date.now() - t0);
  return records;
}

/** All dyn_ftrace records in ip order (the order of available_filter_functions). */
export function ftraceRecords(): readonly DynFtrace[] {
  return loadRecords();
}

/** The record of a function (its fentry site), or null when the function is not traceable. */
export function recordOfFunction(fn: number): DynFtrace | null {
  loadRecords();
  const i = recByFn![fn];
  return i >= 0 ? records![i] : null;
}

/** ftrace_location(): the site address for ip (sym+0 maps to its fentry), or 0. */
export function ftraceLocation(ip: number): number {
  const p = lookupAddr(ip);
  if (!p) return 0;
  const r = recordOfFunction(p.id);
  if (!r) return 0;
  if (r.ip === ip || p.offset === 0) return r.ip;
  return 0;
}

/** True when the function has a usable mcount site (listed in available_filter_functions). */
export function isTraceable(fn: number): boolean {
  return recordOfFunction(fn) !== null;
}

/** available_filter_functions line for a record: name, or __ftrace_invalid_address___<off>. */
export function recordName(r: DynFtrace): string {
  if (r.flags & FTRACE_FL_DISABLED) {
    const p = lookupAddr(r.ip);
    return `__ftrace_invalid_address___${p ? p.offset : 0}`;
  }
  return symbolName(r.fn);
}

export function recordRefCount(r: DynFtrace): number {
  return r.flags & FTRACE_REF_MAX;
}

// ---------------------------------------------------------------- global state

interface State {
  opsList: FtraceOps;
  /** /proc/sys/kernel/ftrace_enabled */
  enabled: boolean;
  /** set_ftrace_pid non-empty */
  pidFiltering: boolean;
  recursionMisses: number;
  /** what the trampoline calls: 'ftrace_stub', 'ftrace_ops_list_func' or an ops func name */
  traceFunction: string;
}

const S: State = {
  opsList: ftraceListEnd, enabled: true, pidFiltering: false, recursionMisses: 0,
  traceFunction: 'ftrace_stub',
};

/** Whether any ftrace_ops is registered (a tracer, the profiler, kprobes on ftrace, a probe). */
export function ftraceOpsRegistered(): boolean {
  return S.opsList !== ftraceListEnd;
}

export function ftraceOpsList(): FtraceOps[] {
  const out: FtraceOps[] = [];
  for (let op: FtraceOps | null = S.opsList; op; op = op.next) out.push(op);
  return out;
}

/** Name of the function ftrace_caller currently calls (update_ftrace_function()). */
export function ftraceTraceFunction(): string {
  return S.traceFunction;
}

export function ftraceRecursionMisses(): number {
  return S.recursionMisses;
}

/** ftrace_ops_test(): filter (empty = all) and not in notrace. */
export function ftraceOpsTest(op: FtraceOps, ip: number): boolean {
  return (op.filterHash.size === 0 || op.filterHash.has(ip)) && (op.notraceHash.size === 0 || !op.notraceHash.has(ip));
}

function updateTraceFunction(): void {
  const first = S.opsList;
  directOps = null;
  directFunc = null;
  if (first === ftraceListEnd) S.traceFunction = 'ftrace_stub';
  else if (first.next === ftraceListEnd && !(first.flags & FTRACE_OPS_FL_DYNAMIC)) {
    S.traceFunction = first.flags & FTRACE_OPS_FL_RECURSION ? 'ftrace_ops_assist_func' : first.funcName;
    directOps = first;
    // what callOps() calls unwrapped: no PID check, no assist recursion guard
    if (!(first.flags & (FTRACE_OPS_FL_PID | FTRACE_OPS_FL_RECURSION))) directFunc = first.func;
  } else S.traceFunction = 'ftrace_ops_list_func';
}

/** Recompute record ref counts/flags (ftrace_hash_rec_update + ftrace_replace_code) for some ips. */
function recompute(only: Iterable<number> | null): void {
  const recs = loadRecords();
  const ops = ftraceOpsList().filter((o) => o.flags & FTRACE_OPS_FL_ENABLED);
  const update = (r: DynFtrace) => {
    if (r.flags & FTRACE_FL_DISABLED) return;
    let ref = 0, regs = false, ipmod = false;
    for (const o of ops) {
      if (!ftraceOpsTest(o, r.ip)) continue;
      ref++;
      if (o.flags & FTRACE_OPS_FL_SAVE_REGS) regs = true;
      if (o.flags & FTRACE_OPS_FL_IPMODIFY) ipmod = true;
    }
    let f = ref;
    if (regs) f |= FTRACE_FL_REGS;
    if (ipmod) f |= FTRACE_FL_IPMODIFY;
    // every ops here is dynamic and gets a trampoline of its own (arch_ftrace_update_trampoline): a
    // site with one ops calls it (the guest shows "tramp:" for a lone function tracer or kprobe)
    if (ref === 1) f |= FTRACE_FL_TRAMP;
    if (ref > 0 && S.enabled) {
      f = (f | FTRACE_FL_ENABLED) >>> 0;
      if (regs) f |= FTRACE_FL_REGS_EN;
      if (f & FTRACE_FL_TRAMP) f |= FTRACE_FL_TRAMP_EN;
    }
    r.flags = f >>> 0;
    if (r.fn >= 0) setSiteLive(r.fn, ref > 0 && S.enabled);
  };
  // (a filter of many sites — a wildcard's fprobe: one pass over the records costs less than
  // finding each site's record; records outside it come out as they were)
  const many = only !== null && (only instanceof Set ? only.size : 0) * 4 > recs.length;
  if (only === null || many) { for (const r of recs) update(r); return; }
  for (const ip of only) {
    const p = lookupAddr(ip);
    if (!p) continue;
    const r = recordOfFunction(p.id);
    if (r) update(r);
  }
}

/** bit 0 of a site, and bit 2 with it while a site call is installed */
function setSiteLive(fn: number, live: boolean): void {
  sites[fn] = (sites[fn] & SITE_INT3) | (live ? SITE_FTRACE | (siteCalls !== null && siteCalls[fn] !== undefined ? SITE_CALL : 0) : 0);
}

// ---------------------------------------------------------------- site calls

/**
 * A site call: the specialisation, for ONE fentry site, of an ops func — what the func would do
 * for that ip, with the per-ip lookups already done (kprobes: the kprobe at that address). The
 * seam calls it instead of `op.func` only while the fentry trampoline would call that func
 * directly: its ops alone on the list (update_ftrace_function() points ftrace_caller at it),
 * without PID filtering or ftrace-provided recursion protection (ftrace_ops_assist_func). The
 * registration model is unchanged: the ops stays in the list with the ip in its filter hash,
 * records keep their ref counts, `hits` counts the call; any other configuration takes the
 * generic dispatch (list walk, callOps).
 * The owner keeps it equal to what `func` would do at that site, and removes it (null) when it
 * no longer is.
 */
export interface FtraceSiteCall {
  /** the ops func this call stands for at its site */
  readonly func: FtraceFunc;
  call(ip: number, parentIp: number, regs: PtRegs, ctx: CpuContext): void;
}

/**
 * site calls by function id (packed: the hit path indexes an array, not a dictionary), made when the
 * first is installed (filling 131,072 slots cost every start ~1 ms; most runs install none)
 */
let siteCalls: (FtraceSiteCall | undefined)[] | null = null;

/** Install (or remove, with null) the site call of function `fn`'s fentry site. */
export function ftraceSetSiteCall(fn: number, sc: FtraceSiteCall | null): void {
  if (fn < 0 || fn >= CAP) return;
  if (!siteCalls) {
    if (!sc) return;
    siteCalls = new Array<FtraceSiteCall | undefined>(CAP).fill(undefined);
  }
  siteCalls[fn] = sc ?? undefined;
  setSiteLive(fn, (sites[fn] & SITE_FTRACE) !== 0);
}

/** The site call installed for `fn`, or null (tests / introspection). */
export function ftraceSiteCall(fn: number): FtraceSiteCall | null {
  return siteCalls?.[fn] ?? null;
}

function opsIps(op: FtraceOps): Iterable<number> | null {
  return op.filterHash.size === 0 ? null : op.filterHash;
}

/** register_ftrace_function(): 0 or -EBUSY (already enabled / IPMODIFY conflict), -EINVAL. */
export function registerFtraceFunction(op: FtraceOps): number {
  if (op.flags & FTRACE_OPS_FL_ENABLED) return -EBUSY;
  if ((op.flags & FTRACE_OPS_FL_IPMODIFY) && !(op.flags & FTRACE_OPS_FL_SAVE_REGS)) return -EINVAL;
  if (op.flags & FTRACE_OPS_FL_IPMODIFY) {
    // only one IPMODIFY ops per function
    for (const o of ftraceOpsList()) {
      if (!(o.flags & FTRACE_OPS_FL_ENABLED) || !(o.flags & FTRACE_OPS_FL_IPMODIFY)) continue;
      const mine = op.filterHash.size ? [...op.filterHash] : loadRecords().map((r) => r.ip);
      if (mine.some((ip) => ftraceOpsTest(o, ip) && ftraceOpsTest(op, ip))) return -EBUSY;
    }
  }
  op.flags |= FTRACE_OPS_FL_INITIALIZED | FTRACE_OPS_FL_ENABLED;
  op.next = S.opsList; // add_ftrace_ops(): at the head
  S.opsList = op;
  updateTraceFunction();
  recompute(opsIps(op));
  return 0;
}

/** unregister_ftrace_function(): 0 or -ENODEV when not registered. */
export function unregisterFtraceFunction(op: FtraceOps): number {
  let prev: FtraceOps | null = null;
  let cur: FtraceOps | null = S.opsList;
  while (cur && cur !== op) { prev = cur; cur = cur.next; }
  if (!cur || cur === ftraceListEnd) return -ENODEV;
  if (prev) prev.next = op.next; else S.opsList = op.next ?? ftraceListEnd;
  op.next = null;
  op.flags &= ~FTRACE_OPS_FL_ENABLED;
  updateTraceFunction();
  recompute(opsIps(op));
  return 0;
}

/** ftrace_set_filter_ip(ops, ip, remove, reset). -ENOENT when ip is not an ftrace location. */
export function ftraceSetFilterIp(op: FtraceOps, ip: number, remove: boolean, reset: boolean): number {
  if (ip !== ftraceLocation(ip) || ip === 0) return -ENOENT;
  const before = new Set<number>(op.filterHash);
  const wasEmpty = before.size === 0;
  if (reset) op.filterHash.clear();
  if (remove) op.filterHash.delete(ip); else op.filterHash.add(ip);
  if (op.flags & FTRACE_OPS_FL_ENABLED) {
    if (wasEmpty || op.filterHash.size === 0) recompute(null);
    else recompute(new Set([...before, ...op.filterHash]));
  }
  return 0;
}

/** The module a record's function belongs to ('' for vmlinux). */
export function recordModule(r: DynFtrace): string {
  return r.fn >= 0 ? symbolModule(r.fn) : '';
}

/**
 * match_records(): add (or with a leading `!` remove) every enabled record whose function matches
 * `func` (filter_parse_regex() rules; null or '' = every function of the module) and, with `mod`,
 * whose module matches (`mod` may start with `!`: every module but that one; '' = the core
 * kernel). Returns the number of records matched (0: the write fails with -EINVAL).
 */
export function ftraceMatchRecords(hash: Set<number>, func: string | null, mod: string | null): number {
  const recs = loadRecords();
  const fr = func ? filterParseRegex(func) : { type: MATCH_FULL, search: '', not: false };
  if (fr.type === MATCH_INDEX) {
    // add_rec_by_index(): the Nth enabled record (1-based), as available_filter_functions lists them
    const want = Number(fr.search);
    let i = 0;
    for (const r of recs) {
      if (r.flags & FTRACE_FL_DISABLED) continue;
      if (++i === want) { if (fr.not) hash.delete(r.ip); else hash.add(r.ip); return 1; }
    }
    return 0;
  }
  const mr = mod !== null ? filterParseRegex(mod) : null;
  let found = 0;
  for (const r of recs) {
    if (r.flags & FTRACE_FL_DISABLED) continue;
    const name = symbolName(r.fn);
    if (mr) {
      const modname = symbolModule(r.fn);
      if (!mr.search) {
        // blank module: the core kernel (or, with !, every module)
        if (!mr.not === !modname) { if (fr.search && !regexMatch(fr, name)) continue; } else continue;
      } else {
        if (!(modname ? regexMatch(mr, modname) : false) === !mr.not) continue;
        if (fr.search && !regexMatch(fr, name)) continue;
      }
    } else if (!regexMatch(fr, name)) continue;
    if (fr.not) hash.delete(r.ip); else hash.add(r.ip);
    found++;
  }
  return found;
}

/** Re-account every record after a (possibly shared) filter/notrace hash changed. */
export function ftraceUpdateHashes(): void {
  recompute(null);
}

function applyGlob(op: FtraceOps, hash: Set<number>, pattern: string, reset: boolean): number {
  const before = new Set<number>(hash);
  if (reset) hash.clear();
  const n = pattern === '' ? 1 : ftraceMatchRecords(hash, pattern, null);
  if (n === 0) { hash.clear(); for (const ip of before) hash.add(ip); return -EINVAL; }
  if (op.flags & FTRACE_OPS_FL_ENABLED) recompute(null);
  return 0;
}

/** ftrace_set_filter(ops, glob, reset): glob may start with '!'. -EINVAL when nothing matches. */
export function ftraceSetFilter(op: FtraceOps, glob: string, reset: boolean): number {
  return applyGlob(op, op.filterHash, glob, reset);
}

export function ftraceSetNotrace(op: FtraceOps, glob: string, reset: boolean): number {
  return applyGlob(op, op.notraceHash, glob, reset);
}

/** /proc/sys/kernel/ftrace_enabled. 6.1 refuses 0 while a PERMANENT ops is registered (-EBUSY). */
export function setFtraceEnabled(on: boolean): number {
  if (!on && ftraceOpsList().some((o) => o.flags & FTRACE_OPS_FL_PERMANENT && o.flags & FTRACE_OPS_FL_ENABLED)) return -EBUSY;
  S.enabled = on;
  recompute(null);
  return 0;
}

export function ftraceEnabled(): boolean {
  return S.enabled;
}

// ---------------------------------------------------------------- set_ftrace_pid

const pidSet = new Set<number>();

/** set_ftrace_pid contents: PIDs to trace (empty = no filtering). 0 = the idle tasks. */
export function setFtracePids(pids: Iterable<number>): void {
  pidSet.clear();
  for (const p of pids) pidSet.add(p);
  S.pidFiltering = pidSet.size > 0;
}

export function ftracePids(): number[] {
  return [...pidSet].sort((a, b) => a - b);
}

function pidTraced(ctx: CpuContext): boolean {
  if (!S.pidFiltering) return true;
  return pidSet.has(ctx.task.tid);
}

// ---------------------------------------------------------------- dispatch (the seam)

let int3Handler: ((fn: number, regs: PtRegs, ctx: CpuContext) => void) | null = null;

/** kprobes.ts installs its int3 path here (kprobe_int3_handler for probes not on ftrace). */
export function setInt3Handler(h: ((fn: number, regs: PtRegs, ctx: CpuContext) => void) | null): void {
  int3Handler = h;
}

/**
 * Recursion protection as trace_test_and_set_recursion() does: per CPU, one bit per context
 * (normal, softirq, irq, NMI) plus a TRANSITION bit that allows a single nested entry (the kernel
 * tolerates one recursion because preempt_count may lag a context switch).
 * `base` selects the bit group (TRACE_LIST_START = 0 for the list func, TRACE_FTRACE_START = 5 for
 * callbacks taking their own lock: ftrace_ops_assist_func, kprobe_ftrace_handler).
 * Returns the bit taken, or -1 when the recursion is refused (counted in ftraceRecursionMisses()).
 */
export const TRACE_LIST_START = 0;
export const TRACE_FTRACE_START = 5;
export function ftraceTestRecursionTrylock(ctx: CpuContext, base: number): number {
  const cpu = ctx.cpu;
  const cur = recursionBits[cpu];
  const bit = 1 << (base + (ctx.context ?? 0));
  if ((cur & bit) !== 0) return recursionTransition(cpu, cur, base);
  recursionBits[cpu] = cur | bit;
  return bit;
}

/** the context's bit is taken: the TRANSITION bit lets one nested entry through (small trylock: inlined) */
function recursionTransition(cpu: number, cur: number, base: number): number {
  const bit = 1 << (base + 4);
  if (cur & bit) { S.recursionMisses++; return -1; }
  recursionBits[cpu] = cur | bit;
  return bit;
}

export function ftraceTestRecursionUnlock(ctx: CpuContext, bit: number): void {
  const cpu = ctx.cpu;
  recursionBits[cpu] = recursionBits[cpu] & ~bit;
}

/** per CPU recursion bits (current->trace_recursion; one group per context), NR_CPUS of them */
const recursionBits = new Int32Array(8192);

/** ftrace_ops_list_func(): walk the list calling every ops whose hashes accept ip. */
function opsListFunc(ip: number, parentIp: number, regs: PtRegs, ctx: CpuContext): void {
  const bit = ftraceTestRecursionTrylock(ctx, TRACE_LIST_START);
  if (bit < 0) return;
  try {
    for (let op: FtraceOps | null = S.opsList; op && op !== ftraceListEnd; op = op.next) {
      if (!(op.flags & OPS_ENABLED)) continue;
      if (!ftraceOpsTest(op, ip)) continue;
      callOps(op, ip, parentIp, regs, ctx);
    }
  } finally {
    ftraceTestRecursionUnlock(ctx, bit);
  }
}

// flag values read on the hit path (module-local: no property loads on the exports object)
const OPS_ENABLED = 1 << 0, OPS_RECURSION = 1 << 4, OPS_PID = 1 << 13;

/** The ops the fentry trampoline calls directly when it is alone on the list (else null). */
let directOps: FtraceOps | null = null;
/** directOps.func when callOps() would call it without a wrapper (site calls stand for it), else null */
let directFunc: FtraceFunc | null = null;

function callOps(op: FtraceOps, ip: number, parentIp: number, regs: PtRegs, ctx: CpuContext): void {
  const fl = op.flags;
  if ((fl & OPS_PID) && !pidTraced(ctx)) return;
  if (fl & OPS_RECURSION) {
    // ftrace_ops_assist_func(): ftrace adds the recursion protection for this ops
    const bit = ftraceTestRecursionTrylock(ctx, TRACE_FTRACE_START);
    if (bit < 0) return;
    try { op.hits++; op.func(ip, parentIp, op, regs, ctx); } finally { ftraceTestRecursionUnlock(ctx, bit); }
    return;
  }
  op.hits++;
  op.func(ip, parentIp, op, regs, ctx);
}

/** The function whose entry site is being handled right now (for handlers dispatching by id). */
let hitFn = -1;
/** Kallsyms id of the function whose fentry/int3 entry is being handled (-1 outside a hit). */
export function ftraceHitFn(): number {
  return hitFn;
}

/** Return-hook stack of the last task seen (the WeakMap lookup is paid once per task switch). */
let lastTask: CpuContext['task'] | null = null;
let lastRet: RetFrame[] = [];
function retStackOf(t: CpuContext['task']): RetFrame[] {
  if (t === lastTask) return lastRet;
  const rs = taskState(t).retStack;
  lastTask = t;
  lastRet = rs;
  return rs;
}

const NO_ARGS: readonly unknown[] = [];

/**
 * Registers handed to handlers are reused (handlers run to completion inside the entry or
 * return and never re-enter the simulated kernel; a handler must not keep `regs` after it
 * returns): one set per nesting level, so nothing is allocated per hit.
 */
function newRegs(): PtRegs {
  return { ip: 0.5, parentIp: 0.5, args: NO_ARGS, retval: undefined };
}
// made with the module (long-lived like the code using them), deeper levels on demand
const regsPool: PtRegs[] = [newRegs(), newRegs(), newRegs(), newRegs(), newRegs(), newRegs(), newRegs(), newRegs()];
let regsDepth = 0;
function pooledRegs(): PtRegs {
  let r = regsPool[regsDepth];
  if (r === undefined) r = regsPool[regsDepth] = newRegs();
  regsDepth++;
  return r;
}

/** kallsyms addresses by id, fetched on the first live hit (no call into kallsyms per hit) */
let addrTable: Float64Array | null = null;
function fnAddr(fn: number): number {
  const t = addrTable;
  return t !== null ? t[fn] : (addrTable = symbolAddrTable())[fn];
}

function slowEnter(fn: number, ctx: CpuContext, args: readonly unknown[], parentIp: number, st: number): number {
  const regs = pooledRegs();
  regs.ip = fnAddr(fn);
  regs.parentIp = parentIp;
  // the arguments stay referenced until the level is reused: a pointer store (and its write
  // barrier) only when the caller passes another array
  if (regs.args !== args) regs.args = args;
  regs.retval = undefined;
  // try/catch, not finally: the hit path stays cheap (handlers' own errors never get here)
  let mark: number;
  try {
    mark = enterWith(fn, ctx, regs, st);
  } catch (e) {
    regsDepth--;
    throw e;
  }
  regsDepth--;
  return mark;
}

/**
 * The entry of a live site. Returns the kleave() mark — the task's return-stack depth below the
 * hooks this entry pushed — or -1 when it pushed none (nothing to run on the return path).
 */
function enterWith(fn: number, ctx: CpuContext, regs: PtRegs, st: number): number {
  const seq = pushSeq;
  const outer = hitFn;
  hitFn = fn;
  try {
    if (st === SITE_DIRECT) {
      // one ops owns the trampoline and this site has a call standing for its func here
      const sc = siteCalls![fn] as FtraceSiteCall;
      if (sc.func === directFunc) {
        (directOps as FtraceOps).hits++;
        sc.call(regs.ip, regs.parentIp, regs, ctx);
      } else dispatch(fn, ctx, regs, st);
    } else dispatch(fn, ctx, regs, st);
  } catch (e) {
    hitFn = outer;
    throw e;
  }
  hitFn = outer;
  if (pushSeq === seq) return -1;
  // hooks pushed by this entry's handlers (they run to completion on this task's stack)
  return retStackOf(ctx.task).length - (pushSeq - seq);
}

/** The generic entry: the int3 probe on the entry, then ftrace_caller's target. */
function dispatch(fn: number, ctx: CpuContext, regs: PtRegs, st: number): void {
  if (st & SITE_INT3 && int3Handler) int3Handler(fn, regs, ctx);
  if (st & SITE_FTRACE) {
    if (directOps) callOps(directOps, regs.ip, regs.parentIp, regs, ctx);
    else opsListFunc(regs.ip, regs.parentIp, regs, ctx);
  }
}

/**
 * Reach the entry (fentry site) of kernel function `fn` on `ctx`. Returns a mark to hand to
 * kleave(), or -1 when nothing is attached (the site is a NOP) or the entry hooked no return.
 */
export function kenter(fn: number, ctx: CpuContext, args: readonly unknown[], parentIp = 0): number {
  const st = sites[fn];
  if (st === 0) return -1;
  return slowEnter(fn, ctx, args, parentIp, st);
}

/**
 * kenter() with registers the caller built: `regs.ip` must be the function's address and
 * `regs.args` may be a lazy getter (the machine's executor builds arguments only when a handler
 * reads them). Returns -1 (and touches nothing) when the site is a NOP.
 */
export function kenterRegs(fn: number, ctx: CpuContext, regs: PtRegs): number {
  const st = sites[fn];
  if (st === 0) return -1;
  return enterWith(fn, ctx, regs, st);
}

/** Return path of `fn` with its return value: runs return hooks pushed since kenter(). */
export function kleave(fn: number, ctx: CpuContext, retval: unknown, mark: number): void {
  if (mark < 0) return;
  const rs = retStackOf(ctx.task);
  while (rs.length > mark) {
    const fr = rs.pop() as RetFrame;
    const regs = pooledRegs();
    regs.ip = fnAddr(fr.fn);
    regs.parentIp = 0;
    regs.args = NO_ARGS;
    regs.retval = retval;
    try {
      fr.run(regs, ctx);
    } catch (e) {
      regs.retval = undefined;
      regsDepth--;
      throw e;
    }
    regs.retval = undefined;
    regsDepth--;
  }
}

/** One call into a simulated kernel function: entry site, body, return path. */
export function kcall<R>(fn: number, ctx: CpuContext, args: readonly unknown[], body: () => R, parentIp = 0): R {
  const st = sites[fn];
  if (st === 0) return body();
  return kcallLive(fn, ctx, args, body, parentIp, st);
}

/** kcall() of a live site (kept out of line so the NOP path stays small enough to inline) */
function kcallLive<R>(fn: number, ctx: CpuContext, args: readonly unknown[], body: () => R, parentIp: number, st: number): R {
  const mark = slowEnter(fn, ctx, args, parentIp, st);
  if (mark < 0) return body();
  const r = body();
  kleave(fn, ctx, r, mark);
  return r;
}

/** Return hooks pushed so far (an entry that pushed none needs no return path). */
let pushSeq = 0;

/** Push a return hook for the function being entered (used by rethook, fprobe and fgraph). */
export function pushReturnHook(ctx: CpuContext, frame: RetFrame): void {
  retStackOf(ctx.task).push(frame);
  pushSeq++;
}

/** Function id by name for the workload layer (first text symbol of that name), or -1. */
export function functionId(name: string): number {
  return firstAliasOf(name);
}

// ---------------------------------------------------------------- tracefs-style views

/** enabled_functions lines (6.1 format without trampoline details): "name (ref) R I". */
export function enabledFunctions(): string[] {
  const out: string[] = [];
  for (const r of loadRecords()) {
    if (!(r.flags & FTRACE_FL_ENABLED)) continue;
    out.push(`${recordName(r)} (${recordRefCount(r)})${r.flags & FTRACE_FL_REGS ? ' R' : '  '}${r.flags & FTRACE_FL_IPMODIFY ? ' I' : '  '}`);
  }
  return out;
}

/** Reset all ftrace state (tests / new session). */
export function resetFtrace(): void {
  for (const op of ftraceOpsList()) if (op !== ftraceListEnd) op.flags &= ~FTRACE_OPS_FL_ENABLED;
  S.opsList = ftraceListEnd;
  ftraceListEnd.next = null;
  S.enabled = true;
  recursionBits.fill(0);
  S.recursionMisses = 0;
  pidSet.clear();
  S.pidFiltering = false;
  sites.fill(0);
  siteCalls?.fill(undefined);
  if (records) for (const r of records) r.flags &= FTRACE_FL_DISABLED;
  updateTraceFunction();
}

/** re-exported as a value: an accessor re-export turns this module's exports into a dictionary */
export const addrHex = addrHex_;
