/**
 * `procfs("PATH").read[.maxsize(N)]`, `procfs("PATH").write`, `procfs.read` / `procfs.write`
 * (PATH defaults to "command"), each optionally with `.umask(N)` after the path.
 *
 * As in stap, the file is /proc/systemtap/MODULE_NAME/PATH.  A read of the file runs the read
 * probe, whose handler sets `$value` (the file contents, at most maxsize - 1 bytes); a write runs
 * the write probe with `$value` = the bytes written.  In tapsim the file lives in the simulated
 * machine's /proc (when a machine runs alongside the session: setProcfsMachine, called by
 * connectMachine); without a machine the probes never fire.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { ProbeRegistry, Provider, BuildRequest } from '../elaborate/probes';
import { renderComponents } from '../elaborate/util';
import type { TargetCodegenApi } from '../translate';
import type { ProbeContext } from '../runtime/context';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import type { Machine } from '../machine/machine';
import { taskInfo } from './hit';

/** stap's default procfs buffer size (STP_PROCFS_BUFSIZE). */
export const PROCFS_BUFSIZE = 4096;

interface ProcfsData {
  kind: 'read' | 'write';
  path: string;
  maxsize: number;
  umask: number;
}

let machine: Machine | null = null;
/** The machine whose /proc receives the procfs files (null: none; the probes never fire). */
export function setProcfsMachine(m: Machine | null): void {
  machine = m;
}

// ---------------------------------------------------------------------------------------------
// elaboration

function numArg(c: A.ProbePointComponent): number {
  return c.arg && c.arg.k === 'num' ? Number(c.arg.value) : 0;
}

/**
 * stap's procfs_builder checks of a procfs path, in its order and words; the errors point at the
 * probe point's first component (real-stap -p2).  Any other character is allowed.
 */
function checkPath(path: string, tok: A.Token | undefined): void {
  const parts = path.split('/');
  const last = parts.pop()!;
  parts.forEach((part, i) => {
    if (i === 0 && part === '') throw new SemanticError('procfs path cannot start with a \'/\'', tok, [], 'procfs-path');
    if (part === '') throw new SemanticError('procfs path component cannot be empty', tok, [], 'procfs-path');
    if (part === '.' || part === '..') throw new SemanticError('procfs path cannot be relative (and contain \'.\' or \'..\')', tok, [], 'procfs-path');
  });
  if (last === '') throw new SemanticError('procfs path cannot end with a \'/\'', tok, [], 'procfs-path');
  if (last === '.' || last === '..') throw new SemanticError('procfs path cannot be relative (and contain \'.\' or \'..\')', tok, [], 'procfs-path');
}

const provider: Provider = {
  family: 'procfs',
  build(req: BuildRequest): A.ResolvedPoint[] {
    const cs = req.components;
    let path = 'command';
    let umask = -1;
    let maxsize = PROCFS_BUFSIZE;
    let kind: 'read' | 'write' = 'read';
    for (const c of cs) {
      if (c.name === 'procfs' && c.arg && c.arg.k === 'str') {
        path = c.arg.value;
        checkPath(path, cs[0].tok);
      } else if (c.name === 'umask') umask = numArg(c);
      else if (c.name === 'maxsize') {
        maxsize = numArg(c);
        if (maxsize <= 0) throw new SemanticError('maxsize must be greater than 0', undefined, [], 'procfs-maxsize');
      } else if (c.name === 'read' || c.name === 'write') kind = c.name;
    }
    const data: ProcfsData = { kind, path, maxsize, umask };
    return [{ family: 'procfs', pp: renderComponents(cs), data: data as unknown as Record<string, unknown> }];
  },
  // (no vars: stap -L lists no $value for procfs points, which its own expander provides)
  targetDefined: (rp, e) => isValue(e),
  targetAccess: (rp, e, access) => {
    if (!isValue(e)) return null;
    const kind = (rp.data as unknown as ProcfsData).kind;
    if (kind === 'write' && access !== 'read') return new SemanticError('procfs $value variable is read-only in a procfs write probe', e.tok, [], 'procfs-value');
    if (kind === 'read' && access === 'read') return new SemanticError('procfs $value variable cannot be read in a procfs read probe', e.tok, [], 'procfs-value');
    return null;
  },
  targetType: (rp, e) => {
    if (isValue(e)) return 'string';
    return new SemanticError('unresolved target-symbol expression', e.tok, [], 'unresolved-target');
  },
};

function isValue(e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry): boolean {
  return e.k === 'target' && e.name === '$value' && e.components.length === 0;
}

/** Register the procfs probe points (stap's tapset-procfs.cxx patterns). */
export function registerProcfs(r: ProbeRegistry): void {
  for (const root of ['procfs', 'procfs(string)']) {
    for (const um of ['', '.umask(number)']) {
      r.register(`${root}${um}.read`, provider);
      r.register(`${root}${um}.read.maxsize(number)`, provider);
      r.register(`${root}${um}.write`, provider);
    }
  }
}

/** Is this target expression the `$value` of a procfs probe being translated? */
function procfsValue(e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry, api: TargetCodegenApi): boolean {
  return !!api.probe && isValue(e) && api.probe.point.family === 'procfs';
}

/** Target codegen for `$value` reads (null: not ours). */
export function compileProcfsTarget(e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry, api: TargetCodegenApi): string | null {
  if (!procfsValue(e, api)) return null;
  return '(c.data.value)';
}

/** Target codegen for `$value = v` / `$value .= v` (null: not ours). */
export function compileProcfsAssign(e: A.Assign, api: TargetCodegenApi): string | null {
  const t = e.target;
  if (t.k !== 'target' || !procfsValue(t, api)) return null;
  const v = api.ex(e.value);
  if (e.op === '=') return `(c.data.set(${v}))`;
  if (e.op === '.=') return `(c.data.set(c.data.value + ${v}))`;
  api.err('operator ' + e.op + ' not supported on $value', e.tok);
  return '0';
}

// ---------------------------------------------------------------------------------------------
// runtime

class ProcfsHit {
  value = '';
  regs = { ip: 0, parentIp: 0, args: [] as unknown[], retval: undefined };
  args: unknown[] = [];
  fn = -1;
  addr = 0;
  constructor(public cpuCtx: unknown, private readonly max: number) {}
  set(v: string): string {
    this.value = v.length > this.max - 1 ? v.slice(0, Math.max(0, this.max - 1)) : v;
    return this.value;
  }
}

export class ProcfsFamily implements ProbeFamilyRuntime {
  family = 'procfs';
  private armed = false;

  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    const m = machine;
    if (!m) return;
    const byPath = new Map<string, { read?: RegisteredProbe; write?: RegisteredProbe; umask: number }>();
    for (const p of probes) {
      const d = p.meta.data as unknown as ProcfsData;
      const e = byPath.get(d.path) ?? { umask: -1 };
      if (d.kind === 'read') e.read = e.read ?? p;
      else e.write = e.write ?? p;
      if (d.umask >= 0) e.umask = d.umask;
      byPath.set(d.path, e);
    }
    const base = `/proc/systemtap/${engine.moduleName}`;
    const fs = m.fs;
    for (const [path, e] of byPath) {
      const full = `${base}/${path}`;
      const dir = full.slice(0, full.lastIndexOf('/'));
      fs.mkdirp(dir, 'proc');
      let mode = (e.read ? 0o444 : 0) | (e.write ? 0o222 : 0);
      if (e.umask >= 0) mode &= ~e.umask;
      const run = (p: RegisteredProbe, value: string): string => {
        if (!this.armed || engine.state !== 'RUNNING') return '';
        const d = p.meta.data as unknown as ProcfsData;
        const cpu = m.executingCpu() ?? m.cpus[0];
        const hit = new ProcfsHit(cpu.ctx, d.kind === 'read' ? d.maxsize : Number.MAX_SAFE_INTEGER);
        hit.value = value;
        const c: ProbeContext = {
          pp: p.meta.pp, pn: p.meta.pn, probeIndex: p.meta.index, family: p.meta.family, probeType: 'procfs',
          cpu: cpu.ctx.cpu, task: taskInfo(cpu.ctx.task), isReturn: false, userMode: false,
          engine, mem: undefined, data: hit,
        };
        engine.hit(p, c, null);
        return hit.value;
      };
      const show = e.read ? () => run(e.read!, '') : () => '';
      const store = e.write ? (s: string) => { run(e.write!, s); return s.length; } : () => -5; // -EIO
      fs.procFile(full, show, store, mode);
    }
  }

  /** Disarms: the files stay in the machine's /proc but reads/writes no longer run handlers. */
  unregister(): void {
    this.armed = false;
  }
}
