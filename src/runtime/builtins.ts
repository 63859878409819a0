/**
 * Kernel-free tapset functions implemented in TypeScript.
 *
 * A tapset function declared in stdlib/ with an embedded-C body (`%{ ... %}`) is a builtin:
 * the elaborator sets FunctionDecl.builtin = its name and the generated code calls
 * `builtins[name](c, ...args)` where `c` is the ProbeContext of the hit (src/runtime/context.ts).
 * Arity overloads (assert/1 and assert/2, tokenize/1 and /2, ctime/0 and /1) share one
 * implementation that looks at the number of arguments.
 *
 * Errors are StapError with stap's texts; the engine adds the "near ..." location.
 */
import { Long, add, div, fromNumber, fromBigInt, toBigInt } from './int64';
import { StapError } from './errors';
import * as S from './strings';
import * as RX from './regex';
import { ctime as ctimeOf } from './time';
import { ProbeContext, cpuMatchState } from './context';
import { kernelHz } from '../kernel/config';
import { jiffiesAt } from '../kernel/jiffies';

export type Builtin = (c: ProbeContext, ...args: any[]) => Long | string | void;

/** Thrown by abort(): ends the handler at once (not catchable by try/catch). */
export class AbortSignal extends StapError {
  constructor() {
    super('abort', false);
    this.name = 'AbortSignal';
  }
}

const max1 = (c: ProbeContext) => c.engine.maxStringLen - 1;

function nsDiv(ns: Long, d: number): Long {
  return div(ns, d);
}

function checkCpu(c: ProbeContext, cpu: Long): void {
  if (typeof cpu !== 'number' || cpu < 0 || cpu >= c.engine.ncpus) throw new StapError(`cpu ${cpu} is not online`);
}

/** Per-CPU offsets of the simulated local clocks (small deterministic skews). */
function cpuClock(c: ProbeContext, cpu: number): Long {
  return add(c.engine.monotonicNs(), cpu * 37);
}

function stopwatchElapsed(c: ProbeContext, name: string): Long {
  const w = c.engine.stopwatches.get(name);
  if (!w) return 0;
  if (!w.running) return w.accNs;
  return add(w.accNs, add(c.engine.monotonicNs(), -(w.startNs as number)));
}

function swapBytes(v: Long, n: number): Long {
  let x = BigInt.asUintN(64, toBigInt(v));
  let r = 0n;
  for (let i = 0; i < n; i++) {
    r = (r << 8n) | (x & 255n);
    x >>= 8n;
  }
  return fromBigInt(r);
}

const KERNEL_FREE: Record<string, Builtin> = {
  // ------------------------------------------------------------ logging.stp
  exit: (c) => {
    c.engine.exit();
  },
  abort: (c) => {
    c.engine.abort();
  },
  error: (c, msg: string) => {
    throw new StapError(msg);
  },
  warn: (c, msg: string) => {
    c.engine.warn(msg);
  },
  log: (c, msg: string) => {
    c.engine.out(msg + '\n');
  },
  assert: (c, cond: Long, msg?: string) => {
    if (cond === 0) throw new StapError(msg === undefined ? 'Assertion failed' : msg);
  },
  system: (c, cmd: string) => {
    c.engine.system(cmd);
  },
  switch_file: (c) => {
    c.engine.switchFile();
  },
  print_char: (c, ch: Long) => {
    c.engine.out(String.fromCharCode(typeof ch === 'number' ? ch & 255 : Number(toBigInt(ch) & 255n)));
  },

  // ------------------------------------------------------------ string.stp
  strlen: (c, s: string) => s.length,
  substr: (c, s: string, start: Long, len: Long) => S.substr(s, start, len, max1(c)),
  stringat: (c, s: string, pos: Long) => S.stringat(s, pos),
  // (string.stp's stringat under --compatible < 2.3: 0 outside the string, without an error)
  __stringat_pre23: (c, s: string, pos: Long) => {
    try {
      return S.stringat(s, pos);
    } catch (e) {
      if (e instanceof StapError) return 0;
      throw e;
    }
  },
  isinstr: (c, a: string, b: string) => S.isinstr(a, b),
  strpos: (c, a: string, b: string) => S.strpos(a, b),
  str_replace: (c, s: string, find: string, repl: string) => S.strReplace(s, find, repl, max1(c)),
  strtol: (c, s: string, base: Long) => S.strtol(s, base),
  isdigit: (c, s: string) => S.isdigit(s),
  tokenize: (c, a: string, b?: string) => {
    const cs = c.engine.cpuState(c.cpu);
    const st = cs.tok ?? (cs.tok = S.newTokenizeState());
    if (b === undefined) return S.tokenize(st, '', a, max1(c));
    return S.tokenize(st, a, b, max1(c));
  },
  text_str: (c, s: string) => S.textStr(s, max1(c)),
  text_strn: (c, s: string, len: Long, quoted: Long) => S.textStrn(s, len, quoted, max1(c)),
  string_quoted: (c, s: string) => S.stringQuoted(s, max1(c)),
  matched: (c, n: Long) => RX.matched(cpuMatchState(c), n),
  matched_str: (c) => RX.matchedStr(cpuMatchState(c)),
  ngroups: (c) => RX.ngroups(cpuMatchState(c)),

  // ------------------------------------------------------------ endian.stp
  big_endian2: (c, v: Long) => swapBytes(v, 2),
  big_endian4: (c, v: Long) => swapBytes(v, 4),
  big_endian8: (c, v: Long) => swapBytes(v, 8),

  // ------------------------------------------------------------ timestamp.stp
  gettimeofday_ns: (c) => c.engine.realtimeNs(),
  local_clock_ns: (c) => cpuClock(c, c.cpu),
  cpu_clock_ns: (c, cpu: Long) => (checkCpu(c, cpu), cpuClock(c, cpu as number)),
  ktime_get_ns: (c) => c.engine.monotonicNs(),
  /** TSC at a nominal 2.5 GHz of the simulated monotonic clock. */
  get_cycles: (c) => fromNumber(Number(c.engine.monotonicNs()) * 2.5),
  jiffies: (c) => fromNumber(jiffiesAt(Number(c.engine.monotonicNs()))),
  HZ: () => kernelHz(),
  ctime: (c, secs?: Long) => ctimeOf(secs === undefined ? nsDiv(c.engine.realtimeNs(), 1000000000) : secs),

  // ------------------------------------------------------------ random.stp
  randint: (c, n: Long) => {
    if (typeof n !== 'number' || n > 1048576) throw new StapError('range too wide');
    if (n <= 0) return 0;
    return c.engine.random(n);
  },

  // ------------------------------------------------------------ context.stp
  execname: (c) => c.task.execname,
  pexecname: (c) => (c.task.ppid === 1 ? 'systemd' : c.task.execname === 'stapio' ? 'stap' : 'bash'),
  pid: (c) => c.task.pid,
  tid: (c) => c.task.tid,
  ppid: (c) => c.task.ppid,
  pgrp: (c) => c.task.pid,
  sid: (c) => c.task.pid,
  uid: (c) => c.task.uid,
  gid: (c) => c.task.gid,
  euid: (c) => c.task.euid,
  egid: (c) => c.task.egid,
  cpu: (c) => c.cpu,
  pp: (c) => c.pp,
  pn: (c) => c.pn,
  ppfunc: (c) => {
    const m = /(?:function|statement)\("([^"@]*)/.exec(c.pp);
    return m ? m[1] : '';
  },
  probe_type: (c) => c.probeType,
  target: (c) => c.engine.targetPid,
  is_return: (c) => (c.isReturn ? 1 : 0),
  user_mode: (c) => (c.userMode ? 1 : 0),
  module_name: (c) => c.engine.moduleName,
  stp_pid: (c) => c.engine.stapioPid,
  /** the text between `label("` and the next `"` of pn() (pn.stp), "" without one */
  pnlabel: (c) => {
    const at = c.pn.indexOf('label("');
    if (at < 0) return '';
    const rest = c.pn.slice(at + 7);
    const end = rest.indexOf('"');
    return end < 0 ? rest : rest.slice(0, end);
  },

  // ------------------------------------------------------------ stopwatch.stp
  start_stopwatch: (c, name: string) => {
    const sw = c.engine.stopwatches;
    const w = sw.get(name);
    if (!w) sw.set(name, { startNs: c.engine.monotonicNs(), accNs: 0, running: true });
    else if (!w.running) {
      w.startNs = c.engine.monotonicNs();
      w.running = true;
    }
  },
  stop_stopwatch: (c, name: string) => {
    const w = c.engine.stopwatches.get(name);
    if (w && w.running) {
      w.accNs = stopwatchElapsed(c, name);
      w.running = false;
    }
  },
  read_stopwatch_ns: (c, name: string) => stopwatchElapsed(c, name),
  read_stopwatch_us: (c, name: string) => nsDiv(stopwatchElapsed(c, name), 1000),
  read_stopwatch_ms: (c, name: string) => nsDiv(stopwatchElapsed(c, name), 1000000),
  read_stopwatch_s: (c, name: string) => nsDiv(stopwatchElapsed(c, name), 1000000000),
  delete_stopwatch: (c, name: string) => {
    c.engine.stopwatches.delete(name);
  },
};

/**
 * The table by stap name: a null-prototype object (a name like `constructor` or `__proto__`
 * finds nothing inherited); src/probes/setup.ts adds the kernel and tapset-library builtins.
 */
export const builtins: Record<string, Builtin> = Object.assign(Object.create(null) as Record<string, Builtin>, KERNEL_FREE);
// every simulated task lives in the initial pid and user namespaces: ns_pid() and friends are the plain ids
for (const id of ['pid', 'tid', 'ppid', 'pgrp', 'sid', 'uid', 'euid', 'gid', 'egid']) builtins[`ns_${id}`] = KERNEL_FREE[id];

/**
 * Tables added to `builtins` when a name is first not found there (src/probes/setup.ts: the
 * kernel-context and tapset-library builtins, whose modules a begin-only script never loads).
 */
const pending: (() => void)[] = [];

/** Add builtins on first need: `load` fills `builtins` when a lookup misses. */
export function addLazyBuiltins(load: () => void): void {
  pending.push(load);
}

/** Does the runtime implement the embedded-C function `name`? */
export function builtinExists(name: string): boolean {
  if (Object.prototype.hasOwnProperty.call(builtins, name)) return true;
  if (!pending.length) return false;
  for (const load of pending.splice(0)) load();
  return Object.prototype.hasOwnProperty.call(builtins, name);
}

/** The builtin `name` (never an inherited property): a function that fails cleanly when there is none. */
export function builtinFor(name: string): Builtin {
  if (builtinExists(name)) return builtins[name];
  return () => {
    throw new StapError(`function '${name}' has no implementation in this runtime`);
  };
}

