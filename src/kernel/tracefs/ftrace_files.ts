/**
 * The function tracing files (kernel/trace/ftrace.c of Linux 6.1): set_ftrace_filter /
 * set_ftrace_notrace with globs, `!`, `:mod:` and the function commands; set_graph_function /
 * set_graph_notrace; set_ftrace_pid / set_ftrace_notrace_pid; available_filter_functions,
 * enabled_functions, dyn_ftrace_total_info. Writes go through the kernel's trace_parser (tokens
 * separated by white space, a token may span writes) and the working hash is applied when the
 * file is closed; opening with O_TRUNC starts from an empty hash.
 */
import { EINVAL, ENODEV } from '../errno';
import {
  DynFtrace, FTRACE_FL_DISABLED, FTRACE_FL_ENABLED, FTRACE_FL_REGS, FTRACE_FL_IPMODIFY, FTRACE_FL_DIRECT, FTRACE_FL_TRAMP_EN,
  ftraceRecords, ftraceMatchRecords, ftraceUpdateHashes, recordName, recordModule, recordRefCount, ftraceOpsList,
  FtraceOps, ftraceOpsTest, FTRACE_OPS_FL_ENABLED,
} from '../ftrace';
import { FtraceHash } from '../ftrace_hash';
import { formatSymOffset, symbolAddr, kallsymsLookupName } from '../kallsyms';
import { File, FileOps, O_TRUNC, O_ACCMODE } from './vfs';
import { FunctionProbes, ProbeCmd, PROBE_CMDS } from './trace_functions';

/** The text of a token list write (trace_get_user()): complete tokens now, the rest at close. */
class TraceParser {
  private pending = '';
  /** feed a write; returns the tokens completed by it */
  feed(text: string): string[] {
    const s = this.pending + text;
    const out: string[] = [];
    const re = /(\S+)(?=\s)/g;
    let last = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) { out.push(m[1]); last = m.index + m[1].length; }
    const rest = s.slice(last);
    this.pending = /\S/.test(rest) ? rest.trim() : '';
    return out;
  }
  /** the unterminated token left at close */
  flush(): string[] {
    const t = this.pending;
    this.pending = '';
    return t ? [t] : [];
  }
}

/** What a filter file edits: the hash, and (set_ftrace_filter only) the function probes. */
export interface FilterTarget {
  hash: Set<number>;
  /** set_ftrace_filter: commands allowed, probes shown after the functions */
  probes: FunctionProbes | null;
  /** set_ftrace_notrace reads "#### no functions disabled ####" when empty */
  notrace: boolean;
  /** after the hash changed (re-account records) */
  changed(): void;
}

/** ftrace_process_regex(): one token into the working hash. 0 or -errno. */
function processToken(work: Set<number>, tok: string, t: FilterTarget): number {
  const c = tok.indexOf(':');
  if (c < 0) return ftraceMatchRecords(work, tok, null) ? 0 : -EINVAL;
  const func = tok.slice(0, c);
  const rest = tok.slice(c + 1);
  const c2 = rest.indexOf(':');
  const cmd = c2 < 0 ? rest : rest.slice(0, c2);
  const param = c2 < 0 ? null : rest.slice(c2 + 1);
  if (cmd === 'mod') {
    if (param === null) return -EINVAL;
    // ftrace_mod_callback(): "!func:mod:M" removes; an empty func means all of M
    return ftraceMatchRecords(work, func || (func.startsWith('!') ? '!' : ''), param) ? 0 : -EINVAL;
  }
  if (!t.probes || !PROBE_CMDS.includes(cmd)) return -EINVAL;
  const remove = func.startsWith('!');
  const glob = remove ? func.slice(1) : func;
  const matched = new Set<number>();
  if (!ftraceMatchRecords(matched, glob, null)) return -EINVAL;
  const ips = ftraceRecords().filter((r) => matched.has(r.ip)).map((r) => r.ip);
  let event: string | undefined;
  let count = -1;
  let p = param;
  if (cmd === 'enable_event' || cmd === 'disable_event') {
    const parts = (p ?? '').split(':');
    if (parts.length < 2 || !parts[0] || !parts[1]) return -EINVAL;
    event = `${parts[0]}:${parts[1]}`;
    p = parts.length > 2 ? parts[2] : null;
  }
  if (remove) { t.probes.remove(cmd as ProbeCmd, ips, event); return 0; }
  if (p !== null && p !== '') {
    if (!/^(0x[0-9a-f]+|\d+)$/i.test(p)) return -EINVAL;
    count = Number(p);
  }
  t.probes.add(cmd as ProbeCmd, ips, count, event);
  return 0;
}

/** set_ftrace_filter / set_ftrace_notrace */
export function filterFile(t: FilterTarget): File {
  return new File(0o640, {
    show: () => {
      let s = '';
      if (t.hash.size === 0) s = t.notrace ? '#### no functions disabled ####\n' : (t.probes?.lines().length ? '' : '#### all functions enabled ####\n');
      else for (const r of ftraceRecords()) if (t.hash.has(r.ip)) s += recLine(r) + '\n';
      if (t.hash.size === 0 && !t.notrace && t.probes?.lines().length) s = '#### all functions enabled ####\n';
      for (const l of t.probes?.lines() ?? []) s += l + '\n';
      return s;
    },
    ...parsedWrites((flags) => (flags & O_TRUNC ? new Set<number>() : new Set(t.hash)), (work, tok) => processToken(work, tok, t),
      (work) => { t.hash.clear(); for (const ip of work) t.hash.add(ip); t.changed(); }),
  });
}

/** A file fed through trace_parser into a working set applied at close. */
function parsedWrites<W>(start: (flags: number) => W, token: (work: W, tok: string) => number, apply: (work: W) => void): FileOps {
  return {
    write: (text, _ctx, open) => {
      let st = open.data as { work: W; parser: TraceParser } | null;
      if (!st) { st = { work: start(open.flags), parser: new TraceParser() }; open.data = st; }
      for (const tok of st.parser.feed(text)) {
        const r = token(st.work, tok);
        if (r < 0) return r;
      }
      return text.length;
    },
    open: () => 0,
    release: (open) => {
      let st = open.data as { work: W; parser: TraceParser } | null;
      // opened with O_TRUNC and closed without a write: the empty working copy applies
      if (!st) { if (!(open.flags & O_TRUNC)) return 0; st = { work: start(open.flags), parser: new TraceParser() }; }
      for (const tok of st.parser.flush()) token(st.work, tok);
      apply(st.work);
      return 0;
    },
  };
}

function recLine(r: DynFtrace): string {
  const mod = recordModule(r);
  return recordName(r) + (mod ? ` [${mod}]` : '');
}

/** set_graph_function / set_graph_notrace: an ftrace hash printed in bucket order */
export function graphFile(g: { hash: FtraceHash; set: Set<number> }, notrace: boolean, onChange: () => void): File {
  return new File(0o640, {
    show: () => {
      if (g.set.size === 0) return notrace ? '#### no functions disabled ####\n' : '#### all functions enabled ####\n';
      return g.hash.entries().map((ip) => recLine(recordAt(ip)) + '\n').join('');
    },
    ...parsedWrites((flags) => (flags & O_TRUNC ? new FtraceHash(10) : g.hash.copy()), (work, tok) => {
      const m = new Set<number>();
      const neg = tok.startsWith('!');
      const found = ftraceMatchRecords(m, neg ? tok.slice(1) : tok, null);
      if (!found) return -EINVAL;
      for (const r of ftraceRecords()) if (m.has(r.ip)) { if (neg) work.remove(r.ip); else work.add(r.ip); }
      return 0;
    }, (work) => {
      g.hash = work.moved();
      g.set.clear();
      for (const ip of g.hash.entries()) g.set.add(ip);
      onChange();
    }),
  });
}

let recIndex: Map<number, DynFtrace> | null = null;
function recordAt(ip: number): DynFtrace {
  if (!recIndex) { recIndex = new Map(); for (const r of ftraceRecords()) recIndex.set(r.ip, r); }
  return recIndex.get(ip) ?? { ip, fn: -1, flags: FTRACE_FL_DISABLED };
}

/** set_ftrace_pid / set_ftrace_notrace_pid / set_event_pid / set_event_notrace_pid */
export function pidFile(pids: Set<number>, exists: (pid: number) => boolean, onChange: () => void): File {
  return new File(0o640, {
    show: () => {
      if (!pids.size) return 'no pid\n';
      return [...pids].sort((a, b) => a - b).map((p) => `${p}\n`).join('');
    },
    ...parsedWrites((flags) => (flags & O_TRUNC ? new Set<number>() : new Set(pids)), (work, tok) => {
      if (!/^\d+$/.test(tok)) return -EINVAL;
      const pid = Number(tok);
      if (pid !== 0 && !exists(pid)) return -EINVAL;
      work.add(pid);
      return 0;
    }, (work) => { pids.clear(); for (const p of work) pids.add(p); onChange(); }),
  });
}

/** available_filter_functions: one record per line, record order */
export function* availableFilterFunctions(): Generator<string, void, void> {
  let s = '';
  for (const r of ftraceRecords()) {
    s += recLine(r) + '\n';
    if (s.length > 16384) { yield s; s = ''; }
  }
  if (s) yield s;
}

/** Trampoline addresses of ops that own one (FTRACE_OPS_FL_ALLOC_TRAMP), allocated in module space. */
const tramps = new WeakMap<FtraceOps, number>();
let nextTramp = Number(BigInt.asIntN(64, 0xffffffffc0400000n));
function trampOf(op: FtraceOps): number {
  let a = tramps.get(op);
  if (a === undefined) { a = nextTramp; nextTramp += 0x1000; tramps.set(op, a); }
  return a;
}

/** enabled_functions: "name (count) R I D" and the trampoline of a single-ops record */
export function enabledFunctionsText(): string {
  let s = '';
  const ops = ftraceOpsList().filter((o) => o.flags & FTRACE_OPS_FL_ENABLED);
  for (const r of ftraceRecords()) {
    if (!(r.flags & FTRACE_FL_ENABLED)) continue;
    s += recLine(r) + ` (${recordRefCount(r)})${r.flags & FTRACE_FL_REGS ? ' R' : '  '}${r.flags & FTRACE_FL_IPMODIFY ? ' I' : '  '}${r.flags & FTRACE_FL_DIRECT ? ' D' : '  '}`;
    if (r.flags & FTRACE_FL_TRAMP_EN) {
      const op = ops.find((o) => ftraceOpsTest(o, r.ip));
      if (op) {
        const fa = kallsymsLookupName(op.funcName);
        const func = fa === null ? op.funcName : formatSymOffset(fa);
        s += `\ttramp: 0x${BigInt.asUintN(64, BigInt(trampOf(op))).toString(16)} (${func}) ->${func}`;
      }
    }
    s += '\n';
  }
  return s;
}

/** dyn_ftrace_total_info: records converted, pages and groups of the mcount tables */
export function dynFtraceTotalInfo(): string {
  // ftrace_allocate_pages() per block of sites (vmlinux, then each module): power-of-two page
  // groups of 256 records (PAGE_SIZE / sizeof(struct dyn_ftrace)) until the block fits
  const blocks = new Map<string, number>();
  for (const r of ftraceRecords()) { const m = recordModule(r); blocks.set(m, (blocks.get(m) ?? 0) + 1); }
  let pages = 0, groups = 0, total = 0;
  for (const n of blocks.values()) {
    total += n;
    let left = n;
    while (left > 0) {
      const want = Math.ceil(left / 256);
      const order = 31 - Math.clz32(want);
      pages += 1 << order;
      groups++;
      left -= Math.min(left, (1 << order) * 256);
    }
  }
  return `${total} pages:${pages} groups: ${groups}\n`;
}

export { ENODEV, O_ACCMODE, symbolAddr, ftraceUpdateHashes };
