/**
 * A generated module at run time: the runtime object `R` its code sees (int64 helpers, string
 * truncation, output, MAXACTION/MAXNESTING errors, formatting, maps and statistics, regexes,
 * builtins, the side tables of locations and data) and loading it through the sandbox
 * (src/runtime/sandbox.ts), which leaves R the only thing in its scope.
 */
import * as I from './int64';
import { Long } from './int64';
import { StapError } from './errors';
import { StapMap, MapOptions } from './maps';
import { Stat, StatSpec, StatOptions, EMPTY_STAT } from './stats';
import { logHist, linearHist } from './histogram';
import { formatInteger, formatString, formatChar, formatBinary, formatMemory, formatInBuffer, clampInt, PAGE_SIZE, STP_BUFFER_SIZE, FormatPart, MemReader } from './format';
import { compileEre, ereMatch, regexErrorText, CompiledEre } from './regex';
import { builtinFor, AbortSignal } from './builtins';
import { ProbeContext, cpuMatchState } from './context';
import type { Translated } from '../translate';
import { compileModule } from './sandbox';

/**
 * The largest MAXSTRINGLEN a module may be compiled with: a concatenation of two strings of that
 * size stays far below V8's string length limit (2^29 - 24).
 */
export const MAX_STRINGLEN = 2 ** 27;

/** A loaded module: its probe handlers (in Translated.probes order) and its globals by name. */
export interface Module {
  probes: ((c: ProbeContext) => void)[];
  globals: Map<string, { get: () => unknown; set?: (v: unknown) => void }>;
  loc: () => number;
}

/** What the module returns (globals in Translated.globals order). */
interface RawModule {
  probes: ((c: ProbeContext) => void)[];
  globals: { get: () => unknown; set?: (v: unknown) => void }[];
  loc: () => number;
}

/** Where a runtime error happened: the "near" location id and the call sites while unwinding. */
export interface ErrLoc {
  near: number;
  callers: number[];
}

/** What the runtime object needs from the engine. */
export interface ModuleHost {
  out(s: string): void;
}

/** Cut a string at its first NUL byte (an sprintf result is a C string). */
function cutNul(s: string): string {
  const i = s.indexOf('\0');
  return i < 0 ? s : s.slice(0, i);
}

function runtimeObject(tr: Translated, host: ModuleHost): Record<string, unknown> {
  const max = tr.limits.maxStringLen - 1;
  return {
    I,
    lim: tr.limits,
    D: tr.data,
    B: builtinFor,
    // run-time shifts mask the count with 63 (stap's pass 3: `a << (b & 63)`); stap's constant
    // folder leaves a constant shifted by a count outside 0..63 unchanged (`120 << -2` is 120)
    shlS: I.shl,
    shrS: I.shr,
    ushrS: I.ushr,
    shlF: (a: Long, b: Long): Long => (b < 0 || b > 63 ? a : I.shl(a, b)),
    shrF: (a: Long, b: Long): Long => (b < 0 || b > 63 ? a : I.shr(a, b)),
    T: (s: string) => (s.length > max ? s.slice(0, max) : s),
    Z: cutNul,
    C: (a: string, b: string, size: number) => (a.length >= size ? a : (a + b).slice(0, size)),
    // one print statement fills at most one print buffer
    out: (s: string) => host.out(s.length > STP_BUFFER_SIZE ? s.slice(0, STP_BUFFER_SIZE) : s),
    // a histogram is printed line by line
    outH: (s: string) => host.out(s),
    maxact: (id: number): never => {
      throw new StapError('MAXACTION exceeded', false, { near: id, callers: [] } as ErrLoc);
    },
    nestErr: (site: number): never => {
      throw new StapError('MAXNESTING exceeded', true, { near: site, callers: [] } as ErrLoc);
    },
    frame: (e: unknown, near: number, site: number): unknown => {
      if (e instanceof StapError && !(e instanceof AbortSignal)) {
        const loc = (e.loc as ErrLoc | undefined) ?? (e.loc = { near, callers: [] } as ErrLoc) as ErrLoc;
        loc.callers.push(site);
      }
      return e;
    },
    caught: (e: unknown): string => {
      if (e instanceof StapError && e.catchable) return e.message.length > max ? e.message.slice(0, max) : e.message;
      if (e instanceof RangeError && /call stack/.test(e.message)) return 'MAXNESTING exceeded';
      throw e;
    },
    exhausted: (): never => {
      throw new StapError('all functions exhausted');
    },
    fI: formatInteger,
    fS: formatString,
    fC: formatChar,
    fB: formatBinary,
    fM: formatMemory,
    fx: (parts: FormatPart[], args: (Long | string)[], size: number, isSprintf: number, mem: MemReader | undefined): string => {
      const s = formatInBuffer(parts, args, size, mem);
      return isSprintf ? cutNul(s.length > size - 1 ? s.slice(0, size - 1) : s) : s;
    },
    star: clampInt,
    memPrec: (v: Long, size: number): number => {
      if (typeof v === 'number' ? v > PAGE_SIZE : v > BigInt(PAGE_SIZE)) throw new StapError(`${v} is too many bytes for a memory dump`);
      return clampInt(v, size);
    },
    newMap: (o: MapOptions) => new StapMap(o),
    newStat: (spec: StatSpec) => new Stat(spec),
    statSpec: (o: StatOptions) => new StatSpec(o),
    logHist,
    linearHist,
    EMPTY_STAT,
    ere: (pat: string): CompiledEre => {
      const r = compileEre(pat);
      if ('error' in r) throw new StapError(regexErrorText(r));
      return r;
    },
    ereMatch: (re: CompiledEre, s: string, c: ProbeContext) => ereMatch(re, s, cpuMatchState(c)),
  };
}

/** Instantiate a translated script's module (fresh globals). */
export function loadModule(tr: Translated, host: ModuleHost): Module {
  const raw = compileModule<RawModule>(tr.source)(runtimeObject(tr, host));
  const globals = new Map<string, { get: () => unknown; set?: (v: unknown) => void }>();
  tr.globals.forEach((g, i) => globals.set(g.name, raw.globals[i]));
  return { probes: raw.probes, globals, loc: raw.loc };
}
