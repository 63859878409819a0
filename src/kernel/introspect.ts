/**
 * Introspection of the tracing tables, printed the way `crash` shows them (seed 003):
 *   crash> ftrace_ops_list
 *   crash> struct ftrace_ops.func,next <addr>
 *   crash> kprobe_table
 *   crash> kprobe.addr,pre_handler,post_handler <addr>
 *   crash> kretprobe.entry_handler,handler,free_instances <addr>
 * Kernel objects print with their vmlinux address and symbol; objects that live in module
 * memory (probes registered by a SystemTap module) print with their simulated module address.
 */
import { FtraceOps, ftraceOpsList } from './ftrace';
import { Kprobe, Kretprobe, kprobeTable, kretprobeOf, KPROBE_TABLE_SIZE } from './kprobes';
import { addrHex, addrToBigInt, kallsymsLookupName, lookupAddr, symbolName as symName, symbolModule } from './kallsyms';

const dynAddr = new WeakMap<object, bigint>();
let nextDyn = 0xffff8881c0000000n;

function objAddr(o: object, name: string): string {
  const a = kallsymsLookupName(name);
  if (a !== null) return addrHex(a);
  let d = dynAddr.get(o);
  if (d === undefined) { d = nextDyn; nextDyn += 0x100n; dynAddr.set(o, d); }
  return d.toString(16);
}

function symRef(name: string): string {
  if (!name) return '0x0';
  const a = kallsymsLookupName(name);
  return a === null ? '0x0' : `0x${addrHex(a)} <${name}>`;
}

function opsRef(op: FtraceOps): string {
  const a = kallsymsLookupName(op.name);
  return a === null ? `0x${objAddr(op, op.name)}` : `0x${addrHex(a)} <${op.name}>`;
}

let seq = 1;
/** `crash> ftrace_ops_list` */
export function crashFtraceOpsList(): string {
  const head = ftraceOpsList()[0];
  return `ftrace_ops_list = $${seq++} = (struct ftrace_ops *) ${opsRef(head)}`;
}

/** `crash> struct ftrace_ops.func,next <ops>` for every ops on the list, in list order. */
export function crashFtraceOpsChain(): string {
  const out: string[] = [];
  for (const op of ftraceOpsList()) {
    out.push(`crash> struct ftrace_ops.func,next ${objAddr(op, op.name)}`);
    out.push(`  func = ${symRef(op.funcName)}`);
    out.push(`  next = ${op.next ? opsRef(op.next) : '0x0'}`);
  }
  return out.join('\n');
}

function kpAddr(p: Kprobe): string {
  return p.objAddr.toString(16);
}

/** `crash> kprobe_table`: 64 hlist heads, first = the bucket's first probe or 0x0. */
export function crashKprobeTable(): string {
  const lines = [`kprobe_table = $${seq++} = `, ' {{'];
  const t = kprobeTable();
  for (let i = 0; i < KPROBE_TABLE_SIZE; i++) {
    const first = t[i][0];
    lines.push(`    first = ${first ? '0x' + kpAddr(first) : '0x0'}`);
    lines.push(i === KPROBE_TABLE_SIZE - 1 ? '  }}' : '  }, {');
  }
  return lines.join('\n');
}

/** Non-empty buckets: "bucket N (kprobe_table+OFF): <probe addr> <symbol>". */
export function kprobeTableSummary(): string[] {
  const out: string[] = [];
  kprobeTable().forEach((b, i) => {
    for (const p of b) {
      const pos = lookupAddr(p.addr as number);
      const sym = pos ? `${symName(pos.id)}+0x${pos.offset.toString(16)}` : '?';
      out.push(`bucket ${i} (kprobe_table+${i * 8}): ${kpAddr(p)} addr=${addrHex(p.addr as number)} <${sym}>${p.list ? ` aggr(${p.list.length})` : ''}`);
    }
  });
  return out;
}


const handlerAddrs = new WeakMap<object, bigint>();
let nextHandler = 0xffffffffc0a10000n;

/** Kernel handlers print as symbols; module (script) handlers get stable module-text addresses. */
function handlerRef(name: string, fn: object | null): string {
  if (!fn) return '0x0';
  if (name) return symRef(name);
  let a = handlerAddrs.get(fn);
  if (a === undefined) { a = nextHandler; nextHandler += 0x20n; handlerAddrs.set(fn, a); }
  return '0x' + a.toString(16);
}

/** `crash> kprobe.addr,pre_handler,post_handler <p>` */
export function crashKprobe(p: Kprobe): string {
  const pos = p.addr !== null ? lookupAddr(p.addr) : null;
  const at = p.addr === null ? '0x0' : `0x${addrHex(p.addr)} <${pos ? symName(pos.id) + (pos.offset ? '+' + pos.offset : '') : '?'}>`;
  return [
    `crash> kprobe.addr,pre_handler,post_handler ${kpAddr(p)}`,
    `  addr = ${at}`,
    `  pre_handler = ${handlerRef(p.preHandlerName, p.preHandler)}`,
    `  post_handler = ${handlerRef(p.postHandlerName, p.postHandler)}`,
    `  flags = ${p.flags}`,
    `  nmissed = ${p.nmissed}`,
  ].join('\n');
}

/** `crash> kretprobe.entry_handler,handler,maxactive,nmissed,rh <rp>` */
export function crashKretprobe(rp: Kretprobe): string {
  const free = rp.freeInstances[rp.freeInstances.length - 1];
  return [
    `crash> kretprobe.entry_handler,handler,maxactive,nmissed ${kpAddr(rp.kp)}`,
    `  entry_handler = ${handlerRef(rp.entryHandlerName, rp.entryHandler)}`,
    `  handler = ${handlerRef(rp.handlerName, rp.handler)}`,
    `  maxactive = ${rp.maxactive}`,
    `  nmissed = ${rp.nmissed}`,
    `  free instances = ${rp.freeInstances.length} (first = ${free ? '0x' + free.objAddr.toString(16) : '0x0'}), in use = ${rp.inUse.size}`,
  ].join('\n');
}

/** /sys/kernel/debug/kprobes/list lines (6.1 format: "%px  %s  %s+0x%x  %s " + tags). */
export function kprobesList(): string[] {
  const out: string[] = [];
  for (const b of kprobeTable()) {
    for (const ap of b) {
      for (const p of ap.list ?? [ap]) {
        const type = kretprobeOf(p) ? 'r' : 'k';
        const pos = lookupAddr(p.addr as number);
        // report_probe(): "%px  %s  %s+0x%x  %s " (module name or a space), or "%px  %s  %pS "
        const mod = pos ? symbolModule(pos.id) : '';
        const where = pos ? `${symName(pos.id)}+0x${pos.offset.toString(16)}  ${mod || ' '}` : addrHex(p.addr as number);
        let tags = '';
        if (p.flags & 1) tags += '[GONE]';
        else if (p.flags & 2) tags += '[DISABLED]';
        if (ap.flags & 4) tags += '[OPTIMIZED]';
        if (ap.flags & 8) tags += '[FTRACE]';
        out.push(`${addrHex(p.addr as number)}  ${type}  ${where} ${tags}`);
      }
    }
  }
  return out;
}

export { addrToBigInt };
