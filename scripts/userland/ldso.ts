/**
 * `node dist/scripts/userland/ldso.js`: data/userland/ldso.json (and ldso-faults.json), what the dynamic loader and libc
 * start-up of each recorded program do on the real Debian 12 guest, taken from the recordings
 * (data/recordings/, scripts/record/FORMAT.md):
 *
 * - per shared library (the strace run): the path ld.so opens, how it reads the ELF header (`read`
 *   832 bytes; `pread64` of the program headers when they do not fit, as libc's 14), its size, and
 *   its mappings relative to the reservation (`mmap(NULL, span, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE)`,
 *   then each PT_LOAD with MAP_FIXED, the anonymous rest of .bss, the PT_GNU_RELRO `mprotect`);
 * - per program: its executable's and ld.so's VMAs (the `/proc/<pid>/maps` snapshot), the libraries
 *   in load order (DT_NEEDED, breadth first), the RELRO order, the TLS block size, and its page
 *   faults (the events run's `exceptions:page_fault_user`/`page_fault_kernel`, placed before the
 *   syscall they preceded and addressed relative to the mapping they hit: `exe`, `ld.so`, a library,
 *   `heap` (from brk(NULL)), `stack` (pages below the top), `anonN` (the N-th anonymous mmap)), and
 *   the faults of each child it forks before that child execs (`forks`, the same labels: the child's
 *   address space is the parent's copy).
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadIndex, loadRecording, Recording } from '../record/recording';
import { splitArgs, straceValue } from '../paths/strace';

const PAGE = 4096;

export interface LibSeg { off: number; len: number; prot: number; fileOff: number }
export interface LibInfo {
  path: string; real: string; size: number; ino: number; pread: boolean; span: number;
  /** PT_LOAD mappings after the first (relative to the reservation) */
  segs: LibSeg[];
  /** anonymous .bss tail [off, len] */
  bss: [number, number] | null;
  relro: [number, number] | null;
}
export interface ProgramInfo {
  exe: string;
  /** exe VMAs relative to the first: [off, len, perms, fileOff] (an anonymous bss VMA has fileOff -1) */
  exeMaps: [number, number, string, number][];
  exeRelro: [number, number] | null;
  ldsoRelro: [number, number] | null;
  libs: string[];
  /** RELRO mprotect order: library names, 'exe', 'ld.so', and `mmap:LEN` for ld.so's anonymous mmap among them */
  relroOrder: string[];
  tls: number;
  /** faults: "ordinal label page flags ptidx" (flags: the x86 error code; 'k' suffix: a kernel-mode fault; ptidx: the address's page index in its page table) */
  faults: string[];
  /** the faults of the program's other recorded runs, by their argv (joined with NUL) */
  runs: Record<string, string[]>;
  /** per recorded run (by argv), the faults of each fork child before its exec, in fork order (forkFaults) */
  forks?: Record<string, string[][]>;
  /** the recording the profile comes from */
  from: string;
}
export interface LdsoData { ldso: [number, number, string, number][]; ldsoPath: string; cacheSize: number; libs: Record<string, LibInfo>; programs: Record<string, ProgramInfo> }

type Line = [number, number, string, string, string];
const num = (s: string): number => Number(straceValue(s) ?? 0);

interface ExecRun { pid: number; exe: string; lines: Line[]; from: string; root: boolean }

/** every exec'd program image in a recording's strace run: its lines from the execve on */
function execRuns(r: Recording): ExecRun[] {
  const out: ExecRun[] = [];
  const cur = new Map<number, ExecRun>();
  let first = true;
  for (const l of r.strace as Line[]) {
    if (l[2] === 'execve' && l[4] === '0') {
      const exe = String(straceValue(splitArgs(l[3])[0]) ?? '');
      const run: ExecRun = { pid: l[0], exe, lines: [], from: r.name, root: first };
      first = false;
      out.push(run);
      cur.set(l[0], run);
    }
    const run = cur.get(l[0]);
    if (run && l[2] !== '+++' && l[2] !== '---') run.lines.push(l);
  }
  return out;
}

function parseMaps(text: string): { start: number; end: number; perms: string; off: number; path: string }[] {
  return text.split('\n').filter(Boolean).map((ln) => {
    const f = ln.trim().split(/\s+/);
    const [a, b] = f[0].split('-').map((x) => parseInt(x, 16));
    return { start: a, end: b, perms: f[1], off: parseInt(f[2], 16), path: f[5] ?? '' };
  });
}

function statField(args: string, k: string): number {
  const m = new RegExp(`${k}=(\\d+)`).exec(args);
  return m ? Number(m[1]) : 0;
}

interface Prologue { libs: Map<string, LibInfo>; order: string[]; libBase: Map<string, number>; cacheAddr: number; tls: number; end: number; mprotects: [number, number][] }

/** the loader's part of a run: up to the munmap of ld.so.cache */
function prologue(run: ExecRun, realOf: (base: number) => string): Prologue | null {
  const libs = new Map<string, LibInfo>();
  const order: string[] = [];
  const libBase = new Map<string, number>();
  const mprotects: [number, number][] = [];
  let open: LibInfo | null = null;
  let cacheAddr = 0, tls = 0, end = -1;
  let afterLibs = false;
  for (let i = 0; i < run.lines.length; i++) {
    const [, , name, args, ret] = run.lines[i];
    const a = splitArgs(args);
    if (name === 'openat') {
      const p = String(straceValue(a[1]) ?? '');
      if (ret.startsWith('-1')) continue;
      if (p === '/etc/ld.so.cache') { open = null; continue; }
      open = { path: p, real: '', size: 0, ino: 0, pread: false, span: 0, segs: [], bss: null, relro: null };
      order.push(p.slice(p.lastIndexOf('/') + 1));
      libs.set(order[order.length - 1], open);
    } else if (name === 'pread64' && open) open.pread = true;
    else if (name === 'newfstatat' && open) { open.size = statField(args, 'st_size'); open.ino = statField(args, 'st_ino'); }
    else if (name === 'mmap') {
      const addr = num(a[0]), len = num(a[1]), prot = num(a[2]), flags = num(a[3]), fd = num(a[4]), off = num(a[5]);
      const r = parseInt(ret, 16);
      if (fd === -1 && (flags & 0x10) === 0) {
        // the TLS block; a later one, among the RELRO mprotects, is ld.so's minimal malloc taking a
        // new chunk (programs with many libraries: cp, mv), kept in the RELRO order as `mmap:LEN`
        if (afterLibs && !tls) tls = len;
        else if (tls) mprotects.push([-1, len]);
        continue;
      }
      if (!open) { if (!cacheAddr && fd >= 0) cacheAddr = r; continue; }
      const nm = order[order.length - 1];
      if (addr === 0) { open.span = len; libBase.set(nm, r); open.real = realOf(r); continue; }
      const base = libBase.get(nm) ?? 0;
      if (fd === -1) open.bss = [addr - base, len];
      else open.segs.push({ off: addr - base, len, prot, fileOff: off });
    } else if (name === 'close' && open) { open = null; afterLibs = true; }
    else if (name === 'mprotect') mprotects.push([num(a[0]), num(a[1])]);
    else if (name === 'munmap' && cacheAddr && num(a[0]) === cacheAddr) { end = i; break; }
  }
  return end < 0 ? null : { libs, order, libBase, cacheAddr, tls, end, mprotects };
}

/** the events run's processes: pid -> exec'd filenames in order */
function eventExecs(r: Recording): { pid: number; exe: string; from: number }[] {
  const out: { pid: number; exe: string; from: number }[] = [];
  const ev = r.eventRecords;
  for (let i = 0; i < ev.length; i += 6) {
    if (r.events[ev[i + 3] as number] !== 'sched_process_exec') continue;
    const m = /filename=(\S+)/.exec(String(ev[i + 5]));
    if (m) out.push({ pid: ev[i + 1] as number, exe: m[1], from: i });
  }
  return out;
}

function hexField(s: string, k: string): number {
  const m = new RegExp(`${k}: ([0-9a-f]+)`).exec(s);
  return m ? parseInt(m[1], 16) : 0;
}

/**
 * faults of one exec'd process of the events run, labelled by mapping (see the header); with `child`,
 * those of the process's fork child whose sched_process_fork record is at `child.at` instead: from its
 * first return to user mode to its execve (or exit), the ordinals counting its own syscalls, the
 * mappings the parent's (the copy fork made). The child's kernel faults before its first syscall are
 * schedule_tail's (the CLONE_CHILD_SETTID store, rseq): the recorded fork_return trees take them.
 */
function faultsOf(r: Recording, pid: number, fromIdx: number, pro: Pick<Prologue, 'order'>, exeRelro: [number, number] | null, ldsoRelro: [number, number] | null,
  relroLabels: string[], ldsoSpan: number, child?: { pid: number; at: number }): string[] {
  const ev = r.eventRecords;
  const raw: [number, number, number, boolean][] = [];
  // which of `raw` are the faults asked for (the parent's, before a fork, only place the stack)
  const own: boolean[] = [];
  let who = pid;
  let ord = 0;
  const bases = new Map<string, [number, number]>();
  const fileMaps: string[] = ['ld.so.cache', ...pro.order];
  let fileMapI = 0, anonI = 0, mprotI = 0;
  let pending: { addr: number; len: number; fd: number } | null = null;
  let heap = 0;
  for (let i = fromIdx; i < ev.length; i += 6) {
    if (child && i === child.at) { who = child.pid; ord = 0; continue; }
    if (ev[i + 1] !== who) continue;
    const name = r.events[ev[i + 3] as number];
    const f = String(ev[i + 5]);
    if (name === 'sched_process_exec' && i !== fromIdx) break;
    if (name.startsWith('sys_enter_')) {
      // the child's execve: the faults after it are the exec's (the new image's)
      if (who !== pid && name === 'sys_enter_execve') break;
      ord++;
      if (name === 'sys_enter_mmap') pending = { addr: hexField(f, 'addr'), len: hexField(f, 'len'), fd: hexField(f, 'fd') };
      if (name === 'sys_enter_mprotect') {
        const lab = relroLabels[mprotI++];
        const start = hexField(f, 'start');
        if (lab === 'exe' && exeRelro) bases.set('exe', [start - exeRelro[0], 1 << 30]);
        if (lab === 'ld.so' && ldsoRelro) bases.set('ld.so', [start - ldsoRelro[0], ldsoSpan]);
      }
    } else if (name === 'sys_exit_mmap' && pending) {
      const ret = parseInt(/0x([0-9a-f]+)/.exec(f)?.[1] ?? '0', 16);
      if (pending.addr === 0) {
        if (pending.fd === 0xffffffff) bases.set(`anon${anonI++}`, [ret, pending.len]);
        else { const lab = fileMaps[fileMapI++]; if (lab) bases.set(lab, [ret, pending.len]); }
      }
      pending = null;
    } else if (name === 'sys_exit_brk' && !heap) {
      heap = parseInt(/0x([0-9a-f]+)/.exec(f)?.[1] ?? '0', 16);
      bases.set('heap', [heap, 1 << 30]);
    } else if (name === 'page_fault_user' || name === 'page_fault_kernel') {
      const addr = parseInt(/address=0x([0-9a-f]+)/.exec(f)?.[1] ?? '0', 16);
      const code = parseInt(/error_code=0x([0-9a-f]+)/.exec(f)?.[1] ?? '0', 16);
      raw.push([ord, addr, code, name === 'page_fault_kernel']);
      own.push(who === (child ? child.pid : pid) && !(who !== pid && ord === 0 && name === 'page_fault_kernel'));
      // the label is decided below, once every base of this process is known
      (raw[raw.length - 1] as unknown as { bases: Map<string, [number, number]> }).bases = new Map(bases);
    }
  }
  // each fault's mapping: the smallest one known by then holding the address (a library inside no
  // other; the heap past the exe); the ones in none of them, high in the address space, are the stack
  // or the vdso above it (libraries can be mapped up there too: the mmap base is randomized)
  const mapped = raw.map((f) => {
    const addr = f[1];
    const bs = new Map((f as unknown as { bases: Map<string, [number, number]> }).bases);
    for (const k of ['exe', 'ld.so']) { const b = bases.get(k); if (b) bs.set(k, b); }
    let best: [string, number, number] | null = null;
    for (const [lab, [b, len]] of bs) {
      if (addr >= b && addr < b + len && (!best || len < best[2])) best = [lab, b, len];
    }
    return best;
  });
  // the stack: its top is the highest unmapped high page below the vdso gap
  const stackPages = raw.filter(([, a], i) => !mapped[i] && a >= 0x7ff000000000).map(([, a]) => Math.floor(a / PAGE)).sort((a, b) => a - b);
  let top = stackPages.length ? stackPages[0] : 0;
  for (const p of stackPages) if (p - top < 64) top = p;
  const out: string[] = [];
  for (let fi = 0; fi < raw.length; fi++) {
    if (!own[fi]) continue;
    const [o, addr, code, kern] = raw[fi];
    const page = Math.floor(addr / PAGE);
    const best = mapped[fi];
    let label = '';
    let rel = 0;
    if (best) { label = best[0]; rel = page - Math.floor(best[1] / PAGE); } else if (addr >= 0x7ff000000000) {
      if (page <= top) { label = 'stack'; rel = top - page; } else { label = 'vdso'; rel = 0; }
    }
    if (!label) continue;
    // (and the page's index in its page table: where the fault-around window of a read fault lay)
    out.push(`${o} ${label} ${rel} ${code.toString(16)}${kern ? 'k' : ''} ${page % 512}`);
  }
  return out;
}

/** the faults of one exec'd image: its process in the events run (the same exec of the same program) */
function runFaults(r: Recording, run: ExecRun, pro: Prologue, exeRelro: [number, number] | null, ldsoRelro: [number, number] | null, relroOrder: string[],
  ldsoSpan: number): string[] {
  const evp = eventProcess(r, run);
  return evp ? faultsOf(r, evp.pid, evp.from, pro, exeRelro, ldsoRelro, relroOrder, ldsoSpan) : [];
}

/** the events run's process of a strace run's exec'd image (the same exec of the same program) */
function eventProcess(r: Recording, run: ExecRun): { pid: number; exe: string; from: number } | undefined {
  const same = execRuns(r).filter((x) => x.exe === run.exe);
  const occurrence = same.findIndex((x) => x.pid === run.pid);
  const evProcs = eventExecs(r).filter((x) => x.exe === run.exe || path.basename(x.exe) === path.basename(run.exe));
  return evProcs[occurrence] ?? evProcs[0];
}

/** CLONE_VM (a thread, vfork): the child runs in its parent's address space */
const CLONE_VM = 0x100;
/**
 * The faults of each fork child of one exec'd image (its process in the events run), in fork order:
 * a child a clone(2) without CLONE_VM made (glibc's fork: dash's background jobs and pipeline members,
 * timeout, tar's compressor) before it execs (faultsOf with `child`); vfork children and threads are
 * left out (they fault the parent's pages).
 */
function forkFaults(r: Recording, run: ExecRun, prog: ProgramInfo, ldsoSpan: number): string[][] {
  const evp = eventProcess(r, run);
  if (!evp) return [];
  const ev = r.eventRecords;
  const out: string[][] = [];
  let lastSys = '';
  for (let i = evp.from; i < ev.length; i += 6) {
    if (ev[i + 1] !== evp.pid) continue;
    const name = r.events[ev[i + 3] as number];
    const f = String(ev[i + 5]);
    if (name === 'sched_process_exec' && i !== evp.from) break;
    if (name.startsWith('sys_enter_')) lastSys = name === 'sys_enter_clone' ? `clone ${hexField(f, 'clone_flags')}` : name;
    if (name !== 'sched_process_fork' || !lastSys.startsWith('clone ') || Number(lastSys.slice(6)) & CLONE_VM) continue;
    const m = /child_pid=(\d+)/.exec(f);
    if (m) out.push(faultsOf(r, evp.pid, evp.from, { order: prog.libs }, prog.exeRelro, prog.ldsoRelro, prog.relroOrder, ldsoSpan, { pid: Number(m[1]), at: i }));
  }
  return out;
}

/** ld.so's whole mapping (its VMAs from the first) */
const ldsoSpan = (d: LdsoData): number => d.ldso.reduce((a, v) => Math.max(a, v[0] + v[1]), 0) || 1 << 20;

function main(): void {
  const data: LdsoData = { ldso: [], ldsoPath: '/lib64/ld-linux-x86-64.so.2', cacheSize: 0, libs: {}, programs: {} };
  const idx = loadIndex();
  const seen = new Set<string>();
  // recordings where the program is the root first (its dedicated workload), then the rest
  const runs: { run: ExecRun; r: Recording }[] = [];
  for (const e of idx.recordings) {
    if (e.name === 'idle') continue;
    const r = loadRecording(e);
    for (const run of execRuns(r)) runs.push({ run, r });
  }
  // a program's own workload first (the recording named after it, else the shortest command it is the root of)
  const rank = (x: { run: ExecRun; r: Recording }): number => {
    const base = path.basename(x.run.exe);
    if (x.r.name === base) return 2;
    return x.run.root && x.r.command.split(' ')[0] === base ? 1 : 0;
  };
  runs.sort((a, b) => rank(b) - rank(a) || a.r.command.length - b.r.command.length);
  for (const { run, r } of runs) {
    const mapsText = r.maps.find((m) => m.pid === run.pid)?.maps;
    if (!mapsText) continue;
    const maps = parseMaps(mapsText);
    const realOf = (base: number): string => maps.find((m) => m.start === base)?.path ?? '';
    const pro = prologue(run, realOf);
    if (!pro) continue;
    const exeReal = maps[0].path;
    const exeMaps = maps.filter((m) => m.path === exeReal);
    const exeStart = exeMaps[0].start;
    const exeEnd = exeMaps[exeMaps.length - 1].end;
    const after = maps.find((m) => m.start === exeEnd && m.path === '');
    const ld = maps.filter((m) => m.path.includes('ld-linux'));
    if (!data.ldso.length && ld.length) {
      data.ldso = ld.map((m) => [m.start - ld[0].start, m.end - m.start, m.perms, m.off]);
      data.cacheSize = num(splitArgs(run.lines.find((l) => l[2] === 'mmap' && l[3].includes(', 3, 0'))?.[3] ?? '0, 0')[1]);
    }
    for (const [nm, li] of pro.libs) {
      const base = pro.libBase.get(nm) ?? 0;
      const rel = pro.mprotects.find(([a]) => a >= base && a < base + li.span);
      li.relro = rel ? [rel[0] - base, rel[1]] : null;
      if (!data.libs[nm]) data.libs[nm] = li;
    }
    const argv = String(run.lines[0][3]).match(/\[([^\]]*)\]/)?.[1] ?? '';
    const argvKey = splitArgs(argv).map((a) => String(straceValue(a) ?? '')).join('\0');
    if (seen.has(run.exe)) {
      const prog = data.programs[run.exe];
      if (prog && !(argvKey in prog.runs)) {
        const f = runFaults(r, run, pro, prog.exeRelro, prog.ldsoRelro, prog.relroOrder, ldsoSpan(data));
        if (f.length) prog.runs[argvKey] = f;
      }
      if (prog && !(argvKey in (prog.forks ?? {}))) {
        const k = forkFaults(r, run, prog, ldsoSpan(data));
        if (k.length) (prog.forks ??= {})[argvKey] = k;
      }
      continue;
    }
    seen.add(run.exe);
    const relroOrder = pro.mprotects.map(([a, len]) => {
      if (a === -1) return `mmap:${len}`;
      for (const [nm, b] of pro.libBase) if (a >= b && a < b + (pro.libs.get(nm)?.span ?? 0)) return nm;
      if (a >= exeStart && a < exeEnd) return 'exe';
      if (ld.length && a >= ld[0].start && a < ld[ld.length - 1].end) return 'ld.so';
      return '?';
    });
    const exeM = pro.mprotects.find(([a]) => a >= exeStart && a < exeEnd);
    const ldM = ld.length ? pro.mprotects.find(([a]) => a >= ld[0].start && a < ld[ld.length - 1].end) : undefined;
    const exeRelro: [number, number] | null = exeM ? [exeM[0] - exeStart, exeM[1]] : null;
    const ldsoRelro: [number, number] | null = ldM ? [ldM[0] - ld[0].start, ldM[1]] : null;
    const faults = runFaults(r, run, pro, exeRelro, ldsoRelro, relroOrder, ldsoSpan(data));
    data.programs[run.exe] = {
      exe: exeReal,
      exeMaps: [...exeMaps, ...(after ? [after] : [])].map((m) => [m.start - exeStart, m.end - m.start, m.perms, m.path ? m.off : -1]),
      exeRelro, ldsoRelro, libs: pro.order, relroOrder, tls: pro.tls, faults, runs: { [argvKey]: faults }, from: r.name,
    };
    const kids = forkFaults(r, run, data.programs[run.exe], ldsoSpan(data));
    if (kids.length) data.programs[run.exe].forks = { [argvKey]: kids };
  }
  const out = path.join(__dirname, '..', '..', '..', 'data', 'userland', 'ldso.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // the faults (most of the data) apart: read at a program's first exec, not at every machine's boot
  const faults: Record<string, { faults: string[]; runs: Record<string, string[]>; forks?: Record<string, string[][]> }> = {};
  for (const [exe, p] of Object.entries(data.programs)) {
    faults[exe] = { faults: p.faults, runs: p.runs };
    if (p.forks) faults[exe].forks = p.forks;
    p.faults = []; p.runs = {};
    delete p.forks;
  }
  fs.writeFileSync(out, JSON.stringify(data) + '\n');
  fs.writeFileSync(out.replace(/\.json$/, '-faults.json'), JSON.stringify(faults) + '\n');
  console.log(`ldso: ${Object.keys(data.programs).length} programs, ${Object.keys(data.libs).length} libraries -> ${path.relative(process.cwd(), out)}`);
}

if (require.main === module) main();
