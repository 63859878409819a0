/**
 * `trace-cmd report`: the records of a trace.dat in time order across CPUs, each line as trace-cmd
 * 3.1 prints it ("%16s-%-5d [%03d] %5lu.%06lu: %-20s info", the usecs rounded) with the plugins it
 * loads by default: function (the function name, indented by its parent's depth in a per-CPU
 * stack), function_graph (leaf entries joined with their return, durations with the !/+ marks),
 * sched_switch and sched_wakeup (comm:pid [prio] state ==> ...); other events through their
 * print fmt. Options: --cpu, -t (ns time stamps), -l (latency format), -F (event names).
 * Formats checked against trace-cmd 3.1.6's output in test/fixtures/tracefs-real/tc_record_*,
 * tc_report_opts and tc_*.report (scripts/tracefs/report-real.sh).
 */
import type { PrintEnv } from '../../../kernel/tracefs/print_fmt';
import { pageEvents } from '../../../kernel/ring_buffer';
import { latFmt } from '../../../kernel/tracefs/trace_output';
import { EventFormat, RawRecord, parseFormat, num, str, printEvent } from './event_format';
import type { TraceDat } from './trace_dat';

export interface ReportOptions {
  cpus?: Set<number>;
  nsTime?: boolean;
  latency?: boolean;
  /** -F: event names (NAME or SYSTEM:NAME, globs) */
  events?: string[];
}

interface Rec extends RawRecord { cpu: number; ts: number }

/** The file's kallsyms as a sorted table. */
class Syms {
  private addrs: bigint[] = [];
  private names: string[] = [];
  constructor(text: string) {
    const rows: [bigint, string][] = [];
    for (const line of text.split('\n')) {
      const m = /^([0-9a-fA-F]+) \S (\S+)(?:\s+\[(\S+)\])?/.exec(line);
      if (m) rows.push([BigInt('0x' + m[1]), m[2]]);
    }
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [a, n] of rows) { this.addrs.push(a); this.names.push(n); }
  }
  find(v: bigint): { name: string; off: bigint } | null {
    const a = BigInt.asUintN(64, v);
    let lo = 0, hi = this.addrs.length - 1, at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.addrs[mid] <= a) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return at < 0 ? null : { name: this.names[at], off: a - this.addrs[at] };
  }
  name(v: bigint): string | null { const s = this.find(v); return s ? s.name : null; }
}

const STATES = 'SDTtZXxW';
function stateText(v: bigint): string {
  let s = '';
  for (let i = 0; i < STATES.length; i++) if (v & (1n << BigInt(i))) s += (s ? '|' : '') + STATES[i];
  return s || 'R';
}

/** print_graph_duration() of trace-cmd's function_graph plugin, with print_graph_overhead()'s mark. */
function graphDuration(d: bigint): string {
  const mark = d > 1000000000n ? '$ ' : d > 1000000n ? '# ' : d > 100000n ? '! ' : d > 10000n ? '+ ' : '  ';
  const us = (d / 1000n).toString();
  let s = us;
  if (us.length < 7) s += '.' + String(d % 1000n).padStart(3, '0').slice(0, Math.min(5, 8 - us.length) - 1);
  return mark + s + ' us ' + ' '.repeat(Math.max(0, 7 - s.length)) + '|  ';
}

export class Report {
  readonly events = new Map<number, EventFormat>();
  readonly syms: Syms;
  private comms = new Map<number, string>();
  private perCpu: Rec[][] = [];
  private pos: number[] = [];
  private fstack: string[][] = [];
  readonly env: PrintEnv;

  constructor(readonly dat: TraceDat, private readonly o: ReportOptions = {}) {
    for (const f of dat.ftraceFormats) this.add('ftrace', f);
    for (const [sys, list] of dat.systems) for (const f of list) this.add(sys, f);
    this.syms = new Syms(dat.kallsyms);
    for (const line of dat.cmdlines.split('\n')) {
      const m = /^(\d+) (.*)$/.exec(line);
      if (m) this.comms.set(Number(m[1]), m[2]);
    }
    this.env = {
      ptr: (v) => BigInt.asUintN(64, v).toString(16),
      sym: (v, offset) => {
        const s = this.syms.find(v);
        if (!s) return BigInt.asUintN(64, v).toString(16);
        return offset ? `${s.name}+0x${s.off.toString(16)}` : s.name;
      },
    };
    for (const [cpu, data] of dat.cpuData.entries()) this.perCpu.push(this.cpuRecords(cpu, data));
    this.pos = this.perCpu.map(() => 0);
  }

  private add(sys: string, text: string): void {
    const ev = parseFormat(sys, text);
    if (ev) this.events.set(ev.id, ev);
  }

  private cpuRecords(cpu: number, data: Uint8Array): Rec[] {
    const out: Rec[] = [];
    const ps = this.dat.pageSize;
    for (let p = 0; p + 16 <= data.length; p += ps) {
      const pdv = new DataView(data.buffer, data.byteOffset + p, Math.min(ps, data.length - p));
      const bytes = data.subarray(p, p + ps);
      const ts = Number(pdv.getBigUint64(0, true));
      const commit = pdv.getUint32(8, true) & 0x3fffffff;
      if (commit > ps - 16) break;
      for (const e of pageEvents(cpu, pdv, bytes, 0, commit, ts)) out.push({ cpu, ts: e.ts, dv: pdv, bytes, off: e.off, len: e.len });
    }
    return out;
  }

  comm(pid: number): string {
    if (pid === 0) return '<idle>';
    return this.comms.get(pid) ?? '<...>';
  }

  /** The next record in time order (lowest CPU first on ties), or null. */
  private next(): Rec | null {
    let best = -1;
    for (let c = 0; c < this.perCpu.length; c++) {
      if (this.o.cpus && !this.o.cpus.has(c)) continue;
      const r = this.perCpu[c][this.pos[c]];
      if (r && (best < 0 || r.ts < this.perCpu[best][this.pos[best]].ts)) best = c;
    }
    return best < 0 ? null : this.perCpu[best][this.pos[best]++];
  }

  private peek(cpu: number): Rec | null { return this.perCpu[cpu][this.pos[cpu]] ?? null; }

  private wanted(ev: EventFormat | undefined): boolean {
    const f = this.o.events;
    if (!f || !f.length) return true;
    if (!ev) return false;
    return f.some((p) => {
      const [sys, name] = p.includes(':') ? p.split(':', 2) : [null, p];
      const re = (g: string) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
      return re(name).test(ev.name) && (sys === null || re(sys).test(ev.system));
    });
  }

  /** Every line of the report (the "cpus=N" line first). */
  *lines(): Generator<string, void, void> {
    yield `cpus=${this.dat.cpuData.length}\n`;
    for (let r = this.next(); r; r = this.next()) {
      const type = r.dv.getUint16(r.off, true);
      const ev = this.events.get(type);
      if (!this.wanted(ev)) continue;
      yield this.line(r, ev);
    }
  }

  private line(r: Rec, ev: EventFormat | undefined): string {
    const pid = r.dv.getInt32(r.off + 4, true);
    const comm = this.comm(pid);
    let ts: string;
    if (this.o.nsTime) {
      const secs = Math.floor(r.ts / 1e9);
      ts = String(secs).padStart(5) + '.' + String(r.ts - secs * 1e9).padStart(9, '0');
    } else {
      const us = Math.floor((r.ts + 500) / 1000);
      const secs = Math.floor(us / 1e6);
      ts = String(secs).padStart(5) + '.' + String(us - secs * 1e6).padStart(6, '0');
    }
    let head: string;
    if (this.o.latency) {
      const flags = r.dv.getUint8(r.off + 2), pc = r.dv.getUint8(r.off + 3);
      head = `${comm.slice(0, 8).padStart(8)}-${String(pid).padEnd(5)} ${String(r.cpu).padStart(3)}${latFmt(flags, pc)} ${ts}: `;
    } else head = `${comm.padStart(16)}-${String(pid).padEnd(5)} [${String(r.cpu).padStart(3, '0')}] ${ts}: `;
    if (!ev) return `${head}${'[UNKNOWN TYPE ' + r.dv.getUint16(r.off, true) + ']'}\n`;
    return `${head}${(ev.name + ':').padEnd(21)} ${this.info(r, ev)}\n`;
  }

  private info(r: Rec, ev: EventFormat): string {
    const key = ev.system + ':' + ev.name;
    switch (key) {
      case 'ftrace:function': return this.fn(r, ev);
      case 'ftrace:funcgraph_entry': return this.graphEntry(r, ev);
      case 'ftrace:funcgraph_exit': {
        const d = num(ev, r, 'rettime') - num(ev, r, 'calltime');
        return graphDuration(d) + ' '.repeat(Number(num(ev, r, 'depth')) * 2) + '}';
      }
      case 'sched:sched_switch':
        return `${str(ev, r, 'prev_comm')}:${num(ev, r, 'prev_pid')} [${num(ev, r, 'prev_prio')}] ${stateText(num(ev, r, 'prev_state'))} ==> ` +
          `${str(ev, r, 'next_comm')}:${num(ev, r, 'next_pid')} [${num(ev, r, 'next_prio')}]`;
      case 'sched:sched_wakeup': case 'sched:sched_wakeup_new': case 'sched:sched_waking': {
        let s = `${str(ev, r, 'comm')}:${num(ev, r, 'pid')} [${num(ev, r, 'prio')}]`;
        if (ev.byName.has('success')) s += ` success=${num(ev, r, 'success')}`;
        return s + ` CPU:${String(num(ev, r, 'target_cpu')).padStart(3, '0')}`;
      }
      default: {
        const text = printEvent(ev, r, this.env);
        return text.endsWith('\n') ? text.slice(0, -1) : text;
      }
    }
  }

  private fn(r: Rec, ev: EventFormat): string {
    const ip = num(ev, r, 'ip'), parent = num(ev, r, 'parent_ip');
    const func = this.syms.name(ip) ?? `0x${ip.toString(16)}`;
    const par = this.syms.name(parent) ?? `0x${parent.toString(16)}`;
    const st = (this.fstack[r.cpu] ??= []);
    let index = st.indexOf(par);
    if (index >= 0) st[index + 1] = func;
    else { st[0] = par; st[1] = func; index = 0; }
    return ' '.repeat(index * 3) + func;
  }

  private graphEntry(r: Rec, ev: EventFormat): string {
    const func = num(ev, r, 'func');
    const depth = Number(num(ev, r, 'depth'));
    const name = this.syms.name(func) ?? `0x${func.toString(16)}`;
    const nx = this.peek(r.cpu);
    if (nx) {
      const xev = this.events.get(nx.dv.getUint16(nx.off, true));
      if (xev && xev.system === 'ftrace' && xev.name === 'funcgraph_exit' && nx.dv.getInt32(nx.off + 4, true) === r.dv.getInt32(r.off + 4, true) &&
        num(xev, nx, 'func') === func) {
        this.pos[r.cpu]++;
        const d = num(xev, nx, 'rettime') - num(xev, nx, 'calltime');
        return graphDuration(d) + ' '.repeat(depth * 2) + name + '();';
      }
    }
    return '  ' + '           |  ' + ' '.repeat(depth * 2) + name + '() {';
  }
}

