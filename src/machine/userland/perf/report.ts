/**
 * perf report --stdio's flat profile (sort comm,dso,symbol) and perf trace -s's per-thread syscall
 * summary, as linux-perf 6.1 prints them (test/fixtures/tracefs-real/perf_record*, perf_trace_s):
 * the "#" header block, Overhead/Command/Shared Object/Symbol columns sized to their contents,
 * and the summary table with its fixed columns.
 */
import { PERF_RECORD_SAMPLE } from '../../kernel/perf_event_open';

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

/** The --stdio report of one event's samples; `sym` resolves kernel addresses. */
export function formatReport(event: string, lost: number, samples: readonly DecodedSample[], sym: (addr: number) => string | null): string {
  const rows = new Map<string, { comm: string; dso: string; symbol: string; period: number }>();
  let total = 0;
  for (const s of samples) {
    const name = s.user || !s.ip ? null : sym(s.ip);
    const dso = name ? '[kernel.kallsyms]' : '[unknown]';
    const symbol = name ? `[k] ${name}` : `[.] ${s.ip.toString(16).padStart(16, '0')}`;
    const comm = s.pid === 0 ? 'swapper' : s.comm.slice(0, 15); // perf names the idle tasks swapper
    const key = `${comm}\0${dso}\0${symbol}`;
    const r = rows.get(key) ?? { comm, dso, symbol, period: 0 };
    r.period += s.period;
    total += s.period;
    rows.set(key, r);
  }
  const list = [...rows.values()].sort((a, b) => b.period - a.period || (a.comm < b.comm ? -1 : a.comm > b.comm ? 1 : a.symbol < b.symbol ? -1 : 1));
  const wc = Math.max(7, ...list.map((r) => r.comm.length));
  const wd = Math.max(13, ...list.map((r) => r.dso.length));
  const ws = Math.max(6, ...list.map((r) => r.symbol.length));
  let out = '# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n';
  out += `# Total Lost Samples: ${lost}\n#\n`;
  out += `# Samples: ${countUnit(samples.length)} of event '${event}'\n# Event count (approx.): ${total}\n#\n`;
  out += `# Overhead  ${'Command'.padEnd(wc)}  ${'Shared Object'.padEnd(wd)}  ${'Symbol'.padEnd(ws)}\n`;
  out += `# ........  ${'.'.repeat(wc)}  ${'.'.repeat(wd)}  ${'.'.repeat(ws)}\n#\n`;
  for (const r of list) {
    const pct = total ? (100 * r.period) / total : 0;
    out += `${pct.toFixed(2).padStart(9)}%  ${r.comm.padEnd(wc)}  ${r.dso.padEnd(wd)}  ${r.symbol}\n`;
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
