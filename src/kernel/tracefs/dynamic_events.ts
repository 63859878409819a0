/**
 * Dynamic probe events (kernel/trace/trace_kprobe.c, trace_uprobe.c, trace_dynevent.c of Linux
 * 6.1): `kprobe_events`, `uprobe_events` and `dynamic_events` take
 *   p[:[GRP/][EVENT]] [MOD:]SYM[+OFFS]|ADDR [FETCHARGS]     r[MAXACTIVE][:[GRP/][EVENT]] SYM[+0] [FETCHARGS]
 *   -:[GRP/][EVENT]                                          p[:[GRP/]EVENT] PATH:OFFSET[%return] [FETCHARGS]
 * A kprobe event registers its kprobe (or kretprobe) disabled at once (kprobes/list shows it
 * [DISABLED]); enabling the event enables it. The event gets the next free id, events/GRP/EVENT/
 * with a format of __probe_ip (or __probe_func, __probe_ret_ip) and the arguments, and records
 * print as `NAME: (func+0x0/0x1a0) arg=...`. kprobe_profile counts hits and misses.
 */
import { CpuContext, PtRegs } from '../current';
import { EBUSY, EINVAL, ENOENT, EEXIST } from '../errno';
import { Kprobe, Kretprobe, KretprobeInstance, registerKprobe, registerKretprobe, unregisterKprobe, unregisterKretprobe,
  enableKprobe, disableKprobe, KPROBE_FLAG_DISABLED } from '../kprobes';
import { kallsymsLookupName, lookupAddr, lookupName, symbolName, symbolModule } from '../kallsyms';
import { recordOfFunction } from '../ftrace';
import { TraceEvent, TraceEventField, traceEvents } from '../tracepoint';
import { Dir, File, textFile } from './vfs';
import { EventFile, RecordBuilder, eventLayout } from './events';
import { RecView, RecordPrinter, OutIter, ipSym } from './trace_output';
import { ProbeArg, ProbeParseError, parseProbeArg, argSize, fetchArg, printArgValue, FetchCtx } from './fetch_args';
import { TracefsHost } from './trace_array';

const ERRS = {
  MAXACT_NO_KPROBE: 'Maxactive is not for kprobe', BAD_MAXACT: 'Invalid maxactive number', MAXACT_TOO_BIG: 'Maxactive is too big',
  BAD_PROBE_ADDR: 'Invalid probed address or symbol', NON_UNIQ_SYMBOL: 'The symbol is not unique', BAD_RETPROBE: 'Retprobe address must be an function entry',
  BAD_ADDR_SUFFIX: 'Invalid probed address suffix', NO_GROUP_NAME: 'Group name is not specified', BAD_GROUP_NAME: 'Group name must follow the same rules as C identifiers',
  NO_EVENT_NAME: 'Event name is not specified', BAD_EVENT_NAME: 'Event name must follow the same rules as C identifiers',
  EVENT_EXIST: 'Given group/event name is already used by another event', BAD_INSN_BNDRY: 'Probe point is not an instruction boundary',
  FAIL_REG_PROBE: 'Failed to register probe event', FILE_NOT_FOUND: 'Failed to find the given file', BAD_UPROBE_OFFS: 'Invalid uprobe offset',
};

/** One probe event (struct trace_kprobe / trace_uprobe). */
export class DynEvent {
  readonly ev: TraceEvent;
  nhit = 0;
  readonly kp: Kprobe | null = null;
  readonly rp: Kretprobe | null = null;
  readonly files = new Set<EventFile>();
  constructor(readonly kind: 'k' | 'u', readonly ret: boolean, readonly group: string, readonly name: string,
    readonly where: string, readonly args: ProbeArg[], id: number, readonly maxactive: number, readonly addr: number,
    readonly path = '', readonly uoffset = 0) {
    const fields: TraceEventField[] = [];
    const head = ret ? 24 : 16;
    if (ret) {
      fields.push({ type: 'unsigned long', name: '__probe_func', offset: 8, size: 8, signed: false, len: 0 });
      fields.push({ type: 'unsigned long', name: '__probe_ret_ip', offset: 16, size: 8, signed: false, len: 0 });
    } else fields.push({ type: 'unsigned long', name: kind === 'u' ? '__probe_ip' : '__probe_ip', offset: 8, size: 8, signed: false, len: 0 });
    for (const a of args) {
      const type = a.count ? `${a.type.fmttype}[${a.count}]` : a.type.fmttype;
      fields.push({ type, name: a.name, offset: head + a.offset, size: argSize(a), signed: a.type.signed, len: a.count });
    }
    let fmt = `"${ret ? '(%lx <- %lx)' : '(%lx)'}`;
    for (const a of args) fmt += ` ${a.name}=` + (a.count ? `{${Array(a.count).fill(a.type.fmt).join(',')}}` : a.type.fmt);
    fmt += `"${ret ? ', REC->__probe_func, REC->__probe_ret_ip' : ', REC->__probe_ip'}`;
    for (const a of args) {
      if (a.count) for (let j = 0; j < a.count; j++) fmt += a.type.string ? `, __get_str(${a.name}[${j}])` : `, REC->${a.name}[${j}]`;
      else fmt += a.type.string ? `, __get_str(${a.name})` : `, REC->${a.name}`;
    }
    this.ev = { id, system: group, name, class: kind === 'u' ? 'uprobe' : 'kprobe', fields, printFmt: fmt, flags: 0, tracepoint: false };
    if (kind === 'k') {
      const handler = (regs: PtRegs, ctx: CpuContext, r: boolean) => this.hit(regs, ctx, r);
      if (ret) {
        const rp = new Kretprobe({ addr, maxactive, handler: (ri: KretprobeInstance, regs, ctx) => { handler(regs, ctx, true); void ri; return 0; } });
        rp.handlerName = 'kretprobe_dispatcher';
        rp.kp.flags |= KPROBE_FLAG_DISABLED;
        this.rp = rp;
      } else {
        const kp = new Kprobe({ addr, preHandler: (_p, regs, ctx) => { handler(regs, ctx, false); return 0; } });
        kp.preHandlerName = 'kprobe_dispatcher';
        kp.flags |= KPROBE_FLAG_DISABLED;
        this.kp = kp;
      }
    }
  }

  get key(): string {
    return `${this.group}/${this.name}`;
  }

  /** the kprobe_events / dynamic_events line */
  line(): string {
    let s = this.ret ? 'r' : 'p';
    // register_kretprobe() fills in the default maxactive, which the listing shows
    const maxactive = this.rp ? this.rp.maxactive : this.maxactive;
    if (this.ret && maxactive) s += maxactive;
    s += `:${this.group}/${this.name} ${this.where}`;
    for (const a of this.args) s += ` ${a.name}=${a.comm}`;
    return s + '\n';
  }

  register(): number {
    if (this.rp) return registerKretprobe(this.rp);
    if (this.kp) return registerKprobe(this.kp);
    return 0;
  }

  unregister(): void {
    if (this.rp) unregisterKretprobe(this.rp);
    if (this.kp) unregisterKprobe(this.kp);
  }

  setEnabled(on: boolean): void {
    const kp = this.rp ? this.rp.kp : this.kp;
    if (!kp) return;
    if (on) enableKprobe(kp); else disableKprobe(kp);
  }

  get nmissed(): number {
    return this.rp ? this.rp.nmissed + this.rp.kp.nmissed : this.kp ? this.kp.nmissed : 0;
  }

  /** kprobe_dispatcher / kretprobe_dispatcher: a record for every enabled file */
  private hit(regs: PtRegs, ctx: CpuContext, ret: boolean): void {
    this.nhit++;
    if (!this.files.size) return;
    const f: FetchCtx = { regs, ctx, ret, sp: stackPointer(ctx), stackWords: [regs.parentIp] };
    const values = this.args.map((a) => fetchArg(a, f));
    const lay = eventLayout(this.ev);
    const head = ret ? 3 : 2;
    for (const file of this.files) {
      file.commit(ctx, (b: RecordBuilder) => {
        // __probe_ip / __probe_func is the probed address (tk->rp.kp.addr), __probe_ret_ip the return address
        if (ret) { b.put(lay[4], this.addr); b.put(lay[5], regs.parentIp); } else b.put(lay[4], this.addr);
        this.args.forEach((a, i) => {
          const fl = lay[4 + head - 1 + i];
          const vs = values[i];
          if (a.type.string) b.put(fl, vs[0] === null ? new Uint8Array(0) : String(vs[0]) + '\0');
          else if (a.count) {
            const bytes = new Uint8Array(argSize(a));
            const dv = new DataView(bytes.buffer);
            vs.forEach((v, j) => { if (typeof v === 'bigint') writeN(dv, j * a.type.size, a.type.size, v); });
            b.put(fl, bytes);
          } else b.put(fl, typeof vs[0] === 'bigint' ? vs[0] : 0n);
        });
      });
    }
  }

  /** print_kprobe_event() / print_kretprobe_event() */
  printer(): RecordPrinter {
    const lay = eventLayout(this.ev);
    const head = this.ret ? 3 : 2;
    return {
      trace: (r: RecView, it: OutIter) => {
        let s = `${this.name}: (`;
        if (this.ret) s += `${ipSym(r.i64(16), { ...it, symOffset: true })} <- ${ipSym(r.i64(8), { ...it, symOffset: false })})`;
        else s += `${ipSym(r.i64(8), { ...it, symOffset: true })})`;
        this.args.forEach((a, i) => {
          const fl = lay[4 + head - 1 + i];
          let v: string;
          if (a.type.string) {
            const loc = r.u32(fl.offset);
            v = loc >>> 16 ? `"${r.str(loc & 0xffff, loc >>> 16)}"` : '(fault)';
          } else if (a.count) {
            const parts: string[] = [];
            for (let j = 0; j < a.count; j++) parts.push(printArgValue(a.type, r.big(fl.offset + j * a.type.size, a.type.size, false)));
            v = `{${parts.join(',')}}`;
          } else v = printArgValue(a.type, r.big(fl.offset, a.type.size, false));
          s += ` ${a.name}=${v}`;
        });
        return s + '\n';
      },
    };
  }
}

function writeN(dv: DataView, off: number, size: number, v: bigint): void {
  if (size === 1) dv.setUint8(off, Number(v & 0xffn));
  else if (size === 2) dv.setUint16(off, Number(v & 0xffffn), true);
  else if (size === 4) dv.setUint32(off, Number(v & 0xffffffffn), true);
  else dv.setBigUint64(off, BigInt.asUintN(64, v), true);
}

/** A task's kernel stack pointer as the model gives it (the top of a 16 KiB stack per tid). */
function stackPointer(ctx: CpuContext): number {
  return Number(BigInt.asIntN(64, 0xffffc90000000000n + BigInt(ctx.task.tid) * 0x4000n + 0x3f00n));
}

export class DynamicEvents {
  readonly events: DynEvent[] = [];
  private nextId = 0;
  constructor(private readonly env: { host: TracefsHost; top: { tr: { errorLog: string[] } } }) {}

  private allocId(): number {
    if (!this.nextId) {
      let max = 0;
      for (const e of traceEvents()) if (e.id > max) max = e.id;
      this.nextId = max + 1;
    }
    return this.nextId++;
  }

  systems(): Map<string, TraceEvent[]> {
    const m = new Map<string, TraceEvent[]>();
    for (const d of this.events) {
      let l = m.get(d.group);
      if (!l) { l = []; m.set(d.group, l); }
      l.push(d.ev);
    }
    return m;
  }

  find(sys: string, name: string): TraceEvent | null {
    return this.events.find((d) => d.group === sys && d.name === name)?.ev ?? null;
  }

  byId(id: number): TraceEvent | null {
    return this.events.find((d) => d.ev.id === id)?.ev ?? null;
  }

  printer(ev: TraceEvent): RecordPrinter | undefined {
    return this.events.find((d) => d.ev === ev)?.printer();
  }

  /** An event file of a probe event was enabled / disabled. */
  reg(f: EventFile, on: boolean): number {
    const d = this.events.find((x) => x.ev === f.ev);
    if (!d) return -ENOENT;
    if (on) { d.files.add(f); d.setEnabled(true); } else { d.files.delete(f); if (!d.files.size) d.setEnabled(false); }
    return 0;
  }

  private logErr(sub: string, cmd: string, text: string, pos: number): void {
    const ns = this.env.host.clock();
    const sec = Math.floor(ns / 1e9);
    const us = Math.floor((ns - sec * 1e9) / 1000);
    this.env.top.tr.errorLog.push(`[${String(sec).padStart(5)}.${String(us).padStart(6, '0')}] ${sub}: error: ${text}\n  Command: ${cmd}\n${' '.repeat(11 + pos)}^\n`);
  }

  /** One command line; 0 or -errno. */
  command(line: string, kinds: 'k' | 'u' | 'any'): number {
    const argv = line.trim().split(/\s+/).filter(Boolean);
    if (!argv.length || argv[0].startsWith('#')) return 0;
    const c = argv[0][0];
    if (c === '-') return this.remove(argv[0], kinds);
    if (c !== 'p' && c !== 'r') return -EINVAL;
    const isU = argv.length > 1 && argv[1].includes('/') && argv[1].includes(':');
    if ((kinds === 'k' && isU) || (kinds === 'u' && !isU)) return -EINVAL;
    const cmd = argv.join(' ');
    const posOf = (idx: number) => argv.slice(0, idx).reduce((n, a) => n + a.length + 1, 0);
    const fail = (sub: string, idx: number, off: number, text: string, rc = -EINVAL) => { this.logErr(sub, cmd, text, posOf(idx) + off); return rc; };
    const sub = isU ? 'trace_uprobe' : 'trace_kprobe';
    let ret = c === 'r';
    const head = argv[0];
    const colon = head.indexOf(':');
    const mid = head.slice(1, colon < 0 ? undefined : colon);
    let maxactive = 0;
    if (mid) {
      if (!ret) return fail(sub, 0, 1, ERRS.MAXACT_NO_KPROBE);
      if (!/^\d+$/.test(mid) || !Number(mid)) return fail(sub, 0, 1, ERRS.BAD_MAXACT);
      maxactive = Number(mid);
      if (maxactive > 4096) return fail(sub, 0, 1, ERRS.MAXACT_TOO_BIG);
    }
    if (argv.length < 2) return -EINVAL;
    let group = isU ? 'uprobes' : 'kprobes';
    let event: string | null = null;
    if (colon >= 0) {
      const en = head.slice(colon + 1);
      const slash = en.search(/[/.]/);
      if (slash === 0) return fail(sub, 0, colon + 1, ERRS.NO_GROUP_NAME);
      if (slash > 0) {
        group = en.slice(0, slash);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(group)) return fail(sub, 0, colon + 1, ERRS.BAD_GROUP_NAME);
        event = en.slice(slash + 1) || null;
      } else {
        if (!en) return fail(sub, 0, colon + 1, ERRS.NO_EVENT_NAME);
        event = en;
      }
      if (event !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(event)) return fail(sub, 0, colon + 1 + (slash > 0 ? slash + 1 : 0), ERRS.BAD_EVENT_NAME);
    }
    let where = argv[1];
    let addr = 0;
    let fentry = false;
    let path = '', uoff = 0;
    if (isU) {
      const m = /^(.+):(0x[0-9a-fA-F]+|\d+)(%return)?$/.exec(where);
      if (!m) return fail(sub, 1, 0, ERRS.BAD_UPROBE_OFFS);
      path = m[1]; uoff = Number(m[2]); if (m[3]) ret = true;
      where = `${path}:0x${uoff.toString(16).padStart(16, '0')}`;
    } else {
      let sym = where;
      if (sym.endsWith('%return')) { sym = sym.slice(0, -7); ret = true; } else if (sym.includes('%')) return fail(sub, 1, sym.indexOf('%'), ERRS.BAD_ADDR_SUFFIX);
      if (/^(0x[0-9a-fA-F]+|\d+)$/.test(sym)) {
        addr = Number(BigInt.asIntN(64, BigInt(sym)));
        if (ret) return fail(sub, 1, 0, ERRS.BAD_RETPROBE);
        where = `0x${BigInt.asUintN(64, BigInt(addr)).toString(16)}`;
      } else {
        const m = /^(?:([A-Za-z0-9_]+):)?([A-Za-z0-9_.]+)(?:\+(0x[0-9a-fA-F]+|\d+))?$/.exec(sym);
        if (!m) return fail(sub, 1, 0, ERRS.BAD_PROBE_ADDR);
        const off = m[3] ? Number(m[3]) : 0;
        const ids = lookupName(m[2]).filter((id) => !m[1] || symbolModule(id) === m[1]);
        if (ids.length > 1 && !m[1]) return fail(sub, 1, 0, ERRS.NON_UNIQ_SYMBOL, -99);
        const a = ids.length ? kallsymsLookupName(m[2]) : null;
        if (a === null) return fail(sub, 1, 0, ERRS.BAD_PROBE_ADDR, -ENOENT);
        addr = a + off;
        const pos = lookupAddr(a);
        fentry = off === 0 && !!pos && recordOfFunction(pos.id) !== null;
        if (ret && off !== 0) return fail(sub, 1, 0, ERRS.BAD_RETPROBE);
        where = off ? `${m[1] ? m[1] + ':' : ''}${m[2]}+${off}` : sym;
        if (!event) event = `${ret ? 'r' : 'p'}_${m[2]}_${off}`;
      }
      if (!event) event = `${ret ? 'r' : 'p'}_0x${BigInt.asUintN(64, BigInt(addr)).toString(16)}`;
    }
    if (!event) event = `${ret ? 'r' : 'p'}_${path.replace(/.*\//, '').replace(/[^A-Za-z0-9_]/g, '_')}_0x${uoff.toString(16)}`;
    event = event.replace(/[^A-Za-z0-9_]/g, '_');
    const used = new Set<string>();
    const args: ProbeArg[] = [];
    let size = 0;
    for (let i = 2; i < argv.length; i++) {
      try {
        const a = parseProbeArg(argv[i], i - 2, size, used, { ret, fentry, kernel: !isU });
        args.push(a);
        size += argSize(a);
      } catch (e) {
        if (e instanceof ProbeParseError) return fail(sub, i, e.offset, e.text);
        throw e;
      }
    }
    const existing = this.events.findIndex((d) => d.group === group && d.name === event);
    if (existing >= 0) return fail(sub, 0, 0, ERRS.EVENT_EXIST, -EEXIST);
    const d = new DynEvent(isU ? 'u' : 'k', ret, group, event, where, args, this.allocId(), maxactive, addr, path, uoff);
    const r = d.register();
    if (r < 0) {
      if (r === -84) return fail(sub, 1, 0, ERRS.BAD_INSN_BNDRY, r);
      return fail(sub, 1, 0, r === -ENOENT ? ERRS.BAD_PROBE_ADDR : ERRS.FAIL_REG_PROBE, r);
    }
    this.events.push(d);
    return 0;
  }

  private remove(tok: string, kinds: 'k' | 'u' | 'any'): number {
    const spec = tok.slice(2);
    if (tok[1] !== ':' || !spec) return -EINVAL;
    const slash = spec.indexOf('/');
    const group = slash >= 0 ? spec.slice(0, slash) : null;
    const name = slash >= 0 ? spec.slice(slash + 1) : spec;
    const i = this.events.findIndex((d) => d.name === name && (group === null || d.group === group) &&
      (kinds === 'any' || d.kind === kinds));
    if (i < 0) return -ENOENT;
    const d = this.events[i];
    if (d.files.size) return -EBUSY;
    d.unregister();
    this.events.splice(i, 1);
    return 0;
  }

  /** O_TRUNC of kprobe_events / uprobe_events / dynamic_events: all go, unless one is enabled */
  truncate(kinds: 'k' | 'u' | 'any'): number {
    const mine = this.events.filter((d) => kinds === 'any' || d.kind === kinds);
    if (mine.some((d) => d.files.size)) return -EBUSY;
    for (const d of mine) { d.unregister(); this.events.splice(this.events.indexOf(d), 1); }
    return 0;
  }

  clear(): void {
    for (const d of this.events) { for (const f of [...d.files]) f.enableDisable(false); d.unregister(); }
    this.events.length = 0;
  }

  private eventsFile(kinds: 'k' | 'u' | 'any'): File {
    return new File(0o640, {
      show: () => this.events.filter((d) => kinds === 'any' || d.kind === kinds).map((d) => d.line()).join(''),
      open: (flags) => ((flags & 3) && flags & 0o1000 ? this.truncate(kinds) : 0),
      write: (text) => {
        for (const l of text.split('\n')) {
          const r = this.command(l.replace(/#.*$/, ''), kinds);
          if (r < 0) return r;
        }
        return text.length;
      },
    });
  }

  private profileFile(kinds: 'k' | 'u'): File {
    return textFile(() => this.events.filter((d) => d.kind === kinds)
      .map((d) => kinds === 'k' ? `  ${d.name.padEnd(44)} ${String(d.nhit).padStart(15)} ${String(d.nmissed).padStart(15)}\n`
        : `  ${d.path.padEnd(32)} ${d.name.padEnd(32)} ${String(d.nhit).padStart(15)}\n`).join(''), 0o440);
  }

  /** kprobe_events, kprobe_profile, uprobe_events, uprobe_profile, dynamic_events, synthetic_events */
  addFiles(d: Dir): void {
    d.add('kprobe_events', this.eventsFile('k'));
    d.add('kprobe_profile', this.profileFile('k'));
    d.add('uprobe_events', this.eventsFile('u'));
    d.add('uprobe_profile', this.profileFile('u'));
    d.add('dynamic_events', this.eventsFile('any'));
    d.add('synthetic_events', new File(0o640, { show: () => '', write: () => -EINVAL }));
  }
}

export { symbolName };
