/**
 * The TypeScript bodies of tapset-library functions (declared with `%{ %}` in stdlib/), gathered
 * for the runtime's builtin table by installLibraryBuiltins() (called from installKernelProbes):
 * tapset_builtins.ts (syscall argument access, aux_syscalls formatters), aux_syscalls.ts and
 * aux_syscalls_user.ts (stap 4.8's flag/enum and user-struct decoders), softfloat.ts
 * (floatingpoint.stp), uconversions.ts (user/kernel memory conversions), task_objects.ts (task,
 * file and dentry objects), and the small ones below: errno_p, signal and IRQ flag strings, the
 * load average, the kernel stack, symbol file/line, the session's module, register stores.
 */
import { StapError } from '../runtime/errors';
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext } from '../runtime/context';
import type { Long } from '../runtime/int64';
import { lookupAddr, functionLocation, symbolName, symbolModule } from '../kernel/kallsyms';
import { syscalls } from '../kernel/syscalls';
import { printk, tracePrint } from '../kernel/printk';
import { kmem, KernelFault } from '../kernel/memory';
import { tapsetBuiltins } from './tapset_builtins';
import { auxSyscallBuiltins, lookupOrStr, ValArray } from './aux_syscalls';
import { auxSyscallUserBuiltins } from './aux_syscalls_user';
import { softfloatBuiltins } from './softfloat';
import { uconversionBuiltins } from './uconversions';
import { taskObjectBuiltins } from './task_objects';
import { errnoName, hit, num, hexU, stack, symOff } from './context';

/** include/linux/interrupt.h (6.1): the IRQF_ names stap's _stp_irq_list has, in its order. */
const IRQF: ValArray = [
  [0x80, 'IRQF_SHARED'], [0x100, 'IRQF_PROBE_SHARED'], [0x14200, 'IRQF_TIMER'], [0x400, 'IRQF_PERCPU'],
  [0x800, 'IRQF_NOBALANCING'], [0x1000, 'IRQF_IRQPOLL'], [0x2000, 'IRQF_ONESHOT'],
];

const SA_FLAGS: [number, string][] = [
  [0x1, 'NOCLDSTOP'], [0x2, 'NOCLDWAIT'], [0x4, 'SIGINFO'], [0x08000000, 'ONSTACK'], [0x10000000, 'RESTART'],
  [0x40000000, 'NODEFER'], [0x80000000, 'RESETHAND'], [0x04000000, 'RESTORER'],
];

/** THREAD_SIZE of x86_64 (16 KiB kernel stacks). */
const THREAD_SIZE = 16384;
/**
 * Kernel stack in use at a probe hit: the frames of the simulated kernel stack (a typical
 * 6.1 frame of 112 bytes each, the entry's pt_regs of 168 bytes) plus the probe handler's own
 * (kprobe int3 handling, stap's handler: 1 KiB). A model: the simulated kernel keeps no stack memory.
 */
function stackUsed(c: ProbeContext): number {
  const frames = stack(c).length;
  return Math.min(THREAD_SIZE, 168 + 112 * frames + 1024);
}

/** The symbol's DWARF declaration (file, line) of a function-entry address, else null. */
function declAt(addr: number): { file: string; line: number } | null {
  const p = lookupAddr(addr);
  if (!p) return null;
  const loc = functionLocation(p.id);
  return loc && loc.file ? { file: loc.file, line: p.offset === 0 ? loc.line : 0 } : null;
}

/** _stp_snprint_addr with _STP_SYM_FILENAME and/or _STP_SYM_LINENUMBER. */
function symFileLine(addr: Long, file: boolean, line: boolean): string {
  const a = num(addr);
  const d = declAt(a);
  if (file && line) {
    if (d && d.line) return `${d.file}:${d.line}`;
    if (d) return d.file;
  } else if (file && d) return d.file;
  else if (line && d && d.line) return String(d.line);
  return `0x${hexU(a)}`;
}

/** set_*_arg: store into the probed function's argument registers (what later reads see). */
function setArg(c: ProbeContext, n: Long, v: Long, bytes: number, signed: boolean): undefined {
  const h = hit(c);
  if (!h) throw new StapError('cannot access function args in this context');
  const i = num(n);
  if (i < 1 || i > 6) throw new StapError(`Cannot access arg(${i})`);
  const big = BigInt(v);
  const val = bytes === 8 ? BigInt.asIntN(64, big) : signed ? BigInt.asIntN(bytes * 8, big) : BigInt.asUintN(bytes * 8, big);
  const args = (h.entryArgs ?? h.args) as unknown[];
  const out = Number.isSafeInteger(Number(val)) ? Number(val) : val;
  try {
    args[i - 1] = out;
  } catch {
    throw new StapError(`cannot set arg(${i}) in this context`);
  }
  return undefined;
}

/** A frame of print_backtrace_fileline: print_backtrace's line with " at FILE[:LINE]" (_STP_SYM_FULLER). */
function filelineFrame(addr: number): string {
  const p = lookupAddr(addr);
  const hex = `0x${hexU(addr).padStart(16, '0')}`;
  if (!p) return ` ${hex}\n`;
  const mod = symbolModule(p.id) || 'kernel';
  const d = declAt(addr);
  const at = d ? ` at ${d.file}${d.line ? ':' + d.line : ''}` : '';
  return ` ${hex} : ${symbolName(p.id)}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}${at} [${mod}]\n`;
}

/** print_regs on x86_64 (_stp_print_regs): the registers the probe has; the rest are not simulated (0). */
function regsText(c: ProbeContext): string {
  const h = hit(c);
  if (!h) return '';
  const args = (h.entryArgs ?? h.args) as unknown[];
  const reg = (i: number): bigint => {
    const v = args[i];
    return typeof v === 'number' ? BigInt(Math.trunc(v)) : typeof v === 'bigint' ? v : v ? BigInt(kmem.addrOf(v, null)) : 0n;
  };
  const x = (v: bigint | number, w = 16): string => BigInt.asUintN(64, BigInt(v)).toString(16).padStart(w, '0');
  const ax = c.isReturn ? BigInt(num((h.regs as { ax?: number }).ax ?? 0)) : 0n;
  return `RIP: ${x(h.addr || h.regs.ip)}\nRSP: ${x(0)}  EFLAGS: ${x(0x246, 8)}\n`
    + `RAX: ${x(ax)} RBX: ${x(0)} RCX: ${x(reg(3))}\n`
    + `RDX: ${x(reg(2))} RSI: ${x(reg(1))} RDI: ${x(reg(0))}\n`
    + `RBP: ${x(0)} R08: ${x(reg(4))} R09: ${x(reg(5))}\n`
    + `R10: ${x(0)} R11: ${x(0)} R12: ${x(0)}\nR13: ${x(0)} R14: ${x(0)} R15: ${x(0)}\n`
    + `FS:  ${x(0)}(0000) GS:${x(0)}(0000) knlGS:${x(0)}\n`
    + `CS:  0010 DS: 0000 ES: 0000 CR0: ${x(0)}\nCR2: ${x(0)} CR3: ${x(0)} CR4: ${x(0)}\n`;
}

export const miscBuiltins: Record<string, Builtin> = {
  is_myproc: (c) => ((c.task.euid ?? 0) === 0 ? 1 : 0),
  __syscall_nr_of: (c, name: string) => syscalls().find((r) => r.name === name && r.abi !== 'x32')?.nr ?? -1,
  print_regs: (c) => {
    c.engine.out(regsText(c));
  },
  print_backtrace_fileline: (c) => {
    c.engine.out(stack(c).map(filelineFrame).join(''));
  },
  printk: (c, level: Long, msg: string) => {
    printk(Math.max(0, Math.min(7, num(level))), Number(c.engine.monotonicNs()), msg);
  },
  ftrace: (c, msg: string) => {
    tracePrint(Number(c.engine.monotonicNs()), msg);
  },
  dump_stack: (c) => {
    const ns = Number(c.engine.monotonicNs());
    printk(4, ns, `CPU: ${c.cpu} PID: ${c.task.tid} Comm: ${c.task.execname}\nCall Trace:\n`
      + stack(c).map((a) => ` ${symOff(a).replace(/^0x/, '? 0x')}\n`).join(''));
  },
  panic: (c, msg: string) => {
    printk(0, Number(c.engine.monotonicNs()), `Kernel panic - not syncing: ${msg}`);
    throw new StapError(`Kernel panic - not syncing: ${msg}`);
  },
  stp_print_binary: (c, n: Long, a1: Long, a2: Long, a3: Long, a4: Long) => {
    let out = '';
    for (const v of [a1, a2, a3, a4].slice(0, Math.max(0, Math.min(4, num(n))))) {
      let b = BigInt.asUintN(64, BigInt(v));
      for (let i = 0; i < 8; i++, b >>= 8n) out += String.fromCharCode(Number(b & 255n));
    }
    c.engine.out(out);
  },
  errno_p: (c, e: Long) => {
    const n = Math.abs(num(e));
    return errnoName(n) ? n : 0;
  },
  // (irqaction's flags, an unsigned int)
  irqflags_str: (c, f: Long) => lookupOrStr(IRQF, num(f) >>> 0),
  sa_flags_str: (c, f: Long) => {
    const v = num(f) >>> 0;
    return SA_FLAGS.filter(([b]) => (v & b) !== 0).map(([, n]) => n).join('|');
  },
  sigset_mask_str: (c, m: Long) => {
    let v = BigInt.asIntN(64, BigInt(m));
    const out: number[] = [];
    for (let i = 1; i < 64; i++, v >>= 1n) if (v & 1n) out.push(i);
    return out.join(',');
  },
  get_sigset: (c, p: Long) => {
    try {
      return Number(BigInt.asIntN(64, kmem.readUnsigned(num(p), 8)));
    } catch (e) {
      if (e instanceof KernelFault) throw new StapError(`read fault [man error::fault] at 0x${hexU(num(p))}`);
      throw e;
    }
  },
  stack_size: () => THREAD_SIZE,
  stack_used: (c) => stackUsed(c),
  stack_unused: (c) => THREAD_SIZE - stackUsed(c),
  registers_valid: (c) => (hit(c) ? 1 : 0),
  remote_id: () => -1,
  remote_uri: () => '',
  symfile: (c, a: Long) => symFileLine(a, true, false),
  symline: (c, a: Long) => symFileLine(a, false, true),
  symfileline: (c, a: Long) => symFileLine(a, true, true),
  set_int_arg: (c, n: Long, v: Long) => setArg(c, n, v, 4, true),
  set_uint_arg: (c, n: Long, v: Long) => setArg(c, n, v, 4, false),
  set_long_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, true),
  set_ulong_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, false),
  set_longlong_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, true),
  set_ulonglong_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, false),
  set_pointer_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, false),
  set_s32_arg: (c, n: Long, v: Long) => setArg(c, n, v, 4, true),
  set_u32_arg: (c, n: Long, v: Long) => setArg(c, n, v, 4, false),
  set_s64_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, true),
  set_u64_arg: (c, n: Long, v: Long) => setArg(c, n, v, 8, false),
};

/** Add every tapset-library builtin to the runtime table. */
export function installLibraryBuiltins(table: Record<string, Builtin>): void {
  for (const set of [tapsetBuiltins, auxSyscallBuiltins, auxSyscallUserBuiltins, softfloatBuiltins, uconversionBuiltins, taskObjectBuiltins, miscBuiltins]) {
    for (const [k, f] of Object.entries(set)) table[k] = f;
  }
}
