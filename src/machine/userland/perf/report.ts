/**
 * perf report --stdio's profile (sort comm,dso,symbol) and perf trace -s's per-thread syscall
 * summary, as linux-perf 6.1 prints them (test/fixtures/tracefs-real/perf_record*, perf_trace_s,
 * test/fixtures/perf-host/): the "#" header block, Overhead (or Children and Self) / Command /
 * Shared Object / Symbol columns sized to their contents, call graphs under the entries
 * (perf/callchain.ts), and the summary table with its fixed columns.
 */
import { PERF_RECORD_SAMPLE } from '../../kernel/perf_event_open';
import { CallchainTree, type ChainFrame } from './callchain';

export interface DecodedSample {
  ip: number; pid: number; tid: number; time: number; cpu: number; period: number;
  callchain: number[]; raw: number[]; comm: string; user: boolean;
}

/** The sample records of perf_event_open.ts's encodeSamples. */
export function decodeSamples(b: Buffer): DecodedSample[] {
  const out: DecodedSample[] = [];
  let o = 0;
  const u64 = (at: number): number => Number(b.readBigUInt64LE(at));
  // kernel addresses are negative numbers in the machine (exact as doubles), as signed u64s
  const addr = (at: number): number => Number(b.readBigInt64LE(at));
  while (o + 8 <= b.length) {
    const type = b.readUInt32LE(o), misc = b.readUInt16LE(o + 4), size = b.readUInt16LE(o + 6);
    if (size < 8 || o + size > b.length) break;
    if (type === PERF_RECORD_SAMPLE) {
      const nr = u64(o + 48);
      const callchain: number[] = [];
      for (let i = 0; i < nr; i++) callchain.push(addr(o + 56 + 8 * i));
      let p = o + 56 + 8 * nr;
      const nraw = u64(p);
      const raw: number[] = [];
      for (let i = 0; i < nraw; i++) raw.push(Number(b.readBigInt64LE(p + 8 + 8 * i)));
      p += 8 + 8 * nraw;
      const comm = b.subarray(p, p + 16).toString('latin1').replace(/\0.*$/s, '');
      out.push({ ip: addr(o + 8), pid: b.readUInt32LE(o + 16), tid: b.readUInt32LE(o + 20), time: u64(o + 24),
        cpu: b.readUInt32LE(o + 32), period: u64(o + 40), callchain, raw, comm, user: misc === 2 });
    }
    o += size;
  }
  return out;
}

const TIP = 'If you have debuginfo enabled, try: perf report -s sym,srcline';

/** "86 " / "1K" as perf's header prints sample counts. */
function countUnit(n: number): string {
  if (n >= 1000000) return `${Math.floor(n / 1000000)}M`;
  if (n >= 1000) return `${Math.floor(n / 1000)}K`;
  return `${n} `;
}

/** A resolved address: its symbol's name and start, and its shared object. */
export interface ResolvedSym { name: string; start: number; dso: string; kernel: boolean }

/** How the report shows call graphs (perf report's --children / --no-children, -g). */
export interface ReportMode {
  /** a graph under each entry (the samples carry callchains and -g none was not given) */
  graph: boolean;
  /** --children (perf's default when the samples carry callchains): each caller gets an entry with its callees' samples */
  children: boolean;
  /** chains outermost caller first (the default with --children) or innermost first (callee) */
  caller: boolean;
  /** graph branches below this share of all samples are left out (-g graph,0.5) */
  minPercent: number;
}

export const FLAT: ReportMode = { graph: false, children: false, caller: false, minPercent: 0.5 };

interface Entry { comm: string; dso: string; symbol: string; self: number; acc: number; chains: CallchainTree | null; tid: number }

/** The frame of callchain address `a` (perf's callchain_list__sym_name: the symbol, else the address in hex). */
function frameOf(a: number, sym: (addr: number) => ResolvedSym | null): ChainFrame {
  const r = sym(a);
  if (r) return { key: `${r.dso}\0${r.start}`, name: r.name, addr: r.start };
  return { key: `?\0${a}`, name: a === 0 ? '0' : `0x${BigInt.asUintN(64, BigInt(a)).toString(16)}`, addr: a };
}

/**
 * The --stdio report of one event's samples (sort comm,dso,symbol, as perf report's default);
 * `sym` resolves addresses, `mode` the call graph layout.
 */
export function formatReport(event: string, lost: number, samples: readonly DecodedSample[], sym: (addr: number) => ResolvedSym | null,
  mode: ReportMode = FLAT): string {
  const rows = new Map<string, Entry>();
  let total = 0;
  const entryOf = (comm: string, tid: number, r: ResolvedSym | null, ip: number): Entry => {
    const dso = r ? r.dso : '[unknown]';
    const symbol = r ? `[${r.kernel ? 'k' : '.'}] ${r.name}` : `[.] ${BigInt.asUintN(64, BigInt(ip)).toString(16).padStart(16, '0')}`;
    const key = `${comm}\0${dso}\0${symbol}`;
    let e = rows.get(key);
    if (!e) { e = { comm, dso, symbol, self: 0, acc: 0, chains: mode.graph ? new CallchainTree() : null, tid }; rows.set(key, e); }
    return e;
  };
  for (const s of samples) {
    const comm = s.pid === 0 ? 'swapper' : s.comm.slice(0, 15); // perf names the idle tasks swapper
    const top = entryOf(comm, s.tid, s.user || !s.ip ? null : sym(s.ip), s.ip);
    top.self += s.period;
    top.acc += s.period;
    total += s.period;
    // the chain innermost first, as the kernel records it (the sample's ip first); a user-mode
    // sample has none here (the machine's programs have no user stacks): no graph
    const addrs = s.callchain;
    const frames = mode.graph ? addrs.map((a) => frameOf(a, sym)) : [];
    const ordered = mode.caller ? [...frames].reverse() : frames;
    top.chains?.append(ordered, s.period);
    if (!mode.children) continue;
    // every function on the chain (once per sample) gets the sample in its children's total and the
    // chain from itself onward in the printed order (perf's cumulative entries; of a recursive
    // function, its first occurrence)
    const seen = new Set<Entry>([top]);
    for (let j = 0; j < addrs.length; j++) {
      const i = mode.caller ? addrs.length - 1 - j : j;
      const e = entryOf(comm, s.tid, sym(addrs[i]), addrs[i]);
      if (seen.has(e)) continue;
      seen.add(e);
      e.acc += s.period;
      e.chains?.append(ordered.slice(j), s.period);
    }
  }
  const key = (r: Entry) => (mode.children ? r.acc : r.self);
  // perf's sort: children (of one thread's equal totals, the caller first: the longer chains with
  // caller graphs), self, then comm, dso and symbol
  const depth = (a: Entry, b: Entry) => (!mode.children || !mode.graph || a.tid !== b.tid ? 0
    : (mode.caller ? 1 : -1) * (b.chains!.maxDepth - a.chains!.maxDepth));
  const list = [...rows.values()].sort((a, b) => key(b) - key(a) || depth(a, b) || b.self - a.self
    || (a.comm < b.comm ? -1 : a.comm > b.comm ? 1 : a.dso < b.dso ? -1 : a.dso > b.dso ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  const wc = Math.max(7, ...list.map((r) => r.comm.length));
  const wd = Math.max(13, ...list.map((r) => r.dso.length));
  const ws = Math.max(6, ...list.map((r) => r.symbol.length));
  const pct = (n: number) => (total ? (100 * n) / total : 0).toFixed(2);
  let out = '# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n';
  out += `# Total Lost Samples: ${lost}\n#\n`;
  out += `# Samples: ${countUnit(samples.length)} of event '${event}'\n# Event count (approx.): ${total}\n#\n`;
  const cols = mode.children ? ['# Children      Self', '# ........  ........'] : ['# Overhead', '# ........'];
  out += `${cols[0]}  ${'Command'.padEnd(wc)}  ${'Shared Object'.padEnd(wd)}  ${'Symbol'.padEnd(ws)}\n`;
  out += `${cols[1]}  ${'.'.repeat(wc)}  ${'.'.repeat(wd)}  ${'.'.repeat(ws)}\n#\n`;
  for (const r of list) {
    const head = mode.children ? `${pct(r.acc).padStart(9)}%  ${pct(r.self).padStart(7)}%` : `${pct(r.self).padStart(9)}%`;
    out += `${head}  ${r.comm.padEnd(wc)}  ${r.dso.padEnd(wd)}  ${r.symbol}\n`;
    if (r.chains) out += r.chains.format(total, key(r), mode.minPercent);
  }
  return out + `\n\n#\n# (Tip: ${TIP})\n#\n`;
}

interface SysStat { calls: number; errors: number; total: number; min: number; max: number; mean: number; m2: number }

/** perf trace -s: per thread (in order of first event), its syscalls sorted by total time. */
export function formatTraceSummary(enter: readonly DecodedSample[], exit: readonly DecodedSample[], name: (nr: number) => string): string {
  const ev = [...enter.map((s) => ({ s, exit: false })), ...exit.map((s) => ({ s, exit: true }))]
    .sort((a, b) => a.s.time - b.s.time || (a.exit ? 1 : 0) - (b.exit ? 1 : 0));
  const threads = new Map<number, { comm: string; events: number; open: Map<number, number>; st: Map<number, SysStat> }>();
  for (const { s, exit: isExit } of ev) {
    let th = threads.get(s.tid);
    if (!th) { th = { comm: s.comm, events: 0, open: new Map(), st: new Map() }; threads.set(s.tid, th); }
    th.comm = s.comm;
    th.events++;
    const nr = s.raw[0] ?? -1;
    if (!isExit) { th.open.set(s.tid, s.time); th.open.set(-1, nr); continue; }
    const at = th.open.get(-1) === nr ? th.open.get(s.tid) : undefined;
    if (at !== undefined) th.open.delete(-1);
    const d = at === undefined ? 0 : (s.time - at) / 1e6;
    const st = th.st.get(nr) ?? { calls: 0, errors: 0, total: 0, min: Infinity, max: 0, mean: 0, m2: 0 };
    st.calls++;
    if ((s.raw[1] ?? 0) < 0) st.errors++;
    st.total += d; st.min = Math.min(st.min, d); st.max = Math.max(st.max, d);
    const delta = d - st.mean;
    st.mean += delta / st.calls;
    st.m2 += delta * (d - st.mean);
    th.st.set(nr, st);
  }
  const all = ev.length;
  let out = '\n Summary of events:\n\n';
  for (const [tid, th] of threads) {
    out += ` ${th.comm} (${tid}), ${th.events} events, ${(all ? (100 * th.events) / all : 0).toFixed(1)}%\n\n`;
    out += '   syscall            calls  errors  total       min       avg       max       stddev\n';
    out += '                                     (msec)    (msec)    (msec)    (msec)        (%)\n';
    out += '   --------------- --------  ------ -------- --------- --------- ---------     ------\n';
    const rows = [...th.st.entries()].sort((a, b) => b[1].total - a[1].total);
    for (const [nr, s] of rows) {
      const avg = s.total / s.calls;
      const sd = s.calls > 1 && avg > 0 ? (100 * Math.sqrt(s.m2 / (s.calls - 1) / s.calls)) / avg : 0;
      out += `   ${name(nr).padEnd(15)} ${String(s.calls).padStart(8)} ${String(s.errors).padStart(6)} ${s.total.toFixed(3).padStart(9)} ${s.min.toFixed(3).padStart(9)} ${avg.toFixed(3).padStart(9)} ${s.max.toFixed(3).padStart(9)} ${sd.toFixed(2).padStart(9)}%\n`;
    }
    out += '\n';
  }
  return out + '\n';
}
