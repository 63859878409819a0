/**
 * The execution context of one probe hit (`c` in generated code): what pp(), pn(), cpu(),
 * pid(), execname() ... read.  The engine builds one per hit; kernel probe families fill the
 * task and family-specific fields (`regs`, `mem`, `data`) for their hits.
 */
import type { TokenizeState } from './strings';
import { MatchState, newMatchState } from './regex';
import type { MemReader } from './format';
import type { Long } from './int64';

export interface TaskInfo {
  pid: number;
  tid: number;
  ppid: number;
  execname: string;
  uid: number;
  gid: number;
  euid: number;
  egid: number;
}

/** What builtins may ask of the engine (see src/runtime/engine.ts). */
export interface EngineApi {
  exit(): void;
  abort(): never;
  warn(msg: string): void;
  /** Append to the current handler's stdout buffer. */
  out(s: string): void;
  /** Virtual wall clock (ns since the epoch) and monotonic clock (ns since boot). */
  realtimeNs(): Long;
  monotonicNs(): Long;
  /** Seeded PRNG, uniform in [0, n). */
  random(n: number): number;
  system(cmd: string): void;
  /** switch_file(): rotate the -o output file */
  switchFile(): void;
  targetPid: number;
  moduleName: string;
  stapioPid: number;
  ncpus: number;
  maxStringLen: number;
  stopwatches: Map<string, { startNs: Long; accNs: Long; running: boolean }>;
  /**
   * The state stap keeps in each CPU's `struct context` across probe hits (it is allocated
   * zeroed once per CPU and never reset at probe entry): tokenize()'s string and position, the
   * last regex match that matched()/ngroups() read.
   */
  cpuState(cpu: number): CpuState;
}

/** Per-CPU probe-context state (runtime/common_probe_context.h: tok_str/tok_start, last_match). */
export interface CpuState {
  tok?: TokenizeState;
  match?: MatchState;
}

export interface ProbeContext {
  pp: string;
  pn: string;
  probeIndex: number;
  family: string;
  /** probe_type() text */
  probeType: string;
  cpu: number;
  task: TaskInfo;
  isReturn: boolean;
  userMode: boolean;
  engine: EngineApi;
  /** kernel/user memory reader for %m/%M and *_string() (kernel families) */
  mem?: MemReader;
  /** family-specific data (registers, tracepoint args, ...) */
  data?: unknown;
}

export function makeContext(engine: EngineApi, fields: Partial<ProbeContext> & { pp: string; task: TaskInfo }): ProbeContext {
  return {
    pn: fields.pp,
    probeIndex: -1,
    family: '',
    probeType: '',
    cpu: 0,
    isReturn: false,
    userMode: false,
    ...fields,
    engine,
  } as ProbeContext;
}

/** The CPU's last regex match (what `=~` records and matched()/ngroups() read). */
export function cpuMatchState(c: ProbeContext): MatchState {
  const cs = c.engine.cpuState(c.cpu);
  return cs.match ?? (cs.match = newMatchState());
}
