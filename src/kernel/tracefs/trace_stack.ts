/**
 * The stack tracer (kernel/trace/trace_stack.c of Linux 6.1): while
 * /proc/sys/kernel/stack_tracer_enabled is 1, an ftrace ops on every function (or those of
 * stack_trace_filter) measures the kernel stack in use at each function entry and keeps the
 * deepest one: stack_max_size and stack_trace ("Depth Size Location" rows, %pS locations).
 *
 * The simulated kernel has call stacks but no stack memory, so a frame's size is a model: the
 * return address slot and saved frame pointer (16 bytes) plus 8 bytes per 256 bytes of the
 * function's code (bigger functions keep more locals), capped at 320; the task's pt_regs
 * (168 bytes) and the entry frame sit at the top of the 16 KiB stack.
 */
import { CpuContext } from '../current';
import {
  FtraceOps, FTRACE_OPS_FL_INITIALIZED, registerFtraceFunction, unregisterFtraceFunction, MCOUNT_INSN_SIZE,
} from '../ftrace';
import { lookupAddr, symbolName as symName } from '../kallsyms';
import { Dir, File, textFile, parseUlong } from './vfs';
import { filterFile } from './ftrace_files';
import { TracefsHost } from './trace_array';
import { FilterHashes } from './trace_functions';

const PT_REGS = 168;
const MAX_ENTRIES = 64;

function frameSize(addr: number): number {
  const p = lookupAddr(addr);
  const size = p ? p.size : 256;
  return Math.min(320, 16 + 8 * Math.floor(size / 256));
}

const DISABLED_HELP = '#\n#  Stack tracer disabled\n#\n# To enable the stack tracer, either add \'stacktrace\' to the\n' +
  "# kernel command line\n# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n#\n";

export class StackTracer {
  enabled = false;
  maxSize = 0;
  private trace: number[] = [];
  private index: number[] = [];
  private readonly ops: FtraceOps;
  readonly hashes: FilterHashes = { filterHash: new Set(), notraceHash: new Set() };

  constructor(private readonly host: TracefsHost) {
    this.ops = new FtraceOps('trace_ops', (ip, _p, _o, _r, ctx) => this.check(ip + MCOUNT_INSN_SIZE, ctx),
      FTRACE_OPS_FL_INITIALIZED, 'stack_trace_call', this.hashes);
  }

  /** /proc/sys/kernel/stack_tracer_enabled */
  enable(on: boolean): void {
    if (on === this.enabled) return;
    this.enabled = on;
    if (on) registerFtraceFunction(this.ops); else unregisterFtraceFunction(this.ops);
  }

  /** check_stack(): a new maximum records the whole stack with the depth of each frame */
  private check(ip: number, ctx: CpuContext): void {
    if ((ctx.context ?? 0) >= 3) return;
    const frames = [ip, ...this.host.kernelStack(ctx)].slice(0, MAX_ENTRIES);
    const sizes = frames.map(frameSize);
    let total = PT_REGS;
    for (const s of sizes) total += s;
    if (total <= this.maxSize) return;
    this.maxSize = total;
    this.trace = frames;
    this.index = [];
    let depth = total;
    for (const s of sizes) { this.index.push(depth); depth -= s; }
  }

  private text(): string {
    const n = this.trace.length;
    let s = `        Depth    Size   Location    (${n} entries)\n        -----    ----   --------\n`;
    if (!this.enabled && !this.maxSize) return s + DISABLED_HELP;
    for (let i = 0; i < n; i++) {
      const size = i + 1 === n ? this.index[i] : this.index[i] - this.index[i + 1];
      const p = lookupAddr(this.trace[i]);
      const loc = p ? `${symName(p.id)}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}` : `0x${BigInt.asUintN(64, BigInt(this.trace[i])).toString(16)}`;
      s += `${String(i).padStart(3)}) ${String(this.index[i]).padStart(8)}   ${String(size).padStart(5)}   ${loc}\n`;
    }
    return s;
  }

  /** stack_max_size, stack_trace, stack_trace_filter */
  addFiles(d: Dir, _global: FilterHashes): void {
    d.add('stack_max_size', new File(0o640, {
      show: () => `${this.maxSize}\n`,
      write: (t) => { const v = parseUlong(t); if (v === null) return -22; this.maxSize = v; return t.length; },
    }));
    d.add('stack_trace', textFile(() => this.text(), 0o440));
    d.add('stack_trace_filter', filterFile({ hash: this.hashes.filterHash, probes: null, notrace: false, changed: () => this.refilter() }));
  }

  private refilter(): void {
    if (this.enabled) { unregisterFtraceFunction(this.ops); registerFtraceFunction(this.ops); }
  }
}

