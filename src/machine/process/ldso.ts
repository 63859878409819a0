/**
 * The dynamic loader and libc start-up (glibc 2.36's ld.so, elf/rtld.c dl_main, elf/dl-load.c
 * _dl_map_object_from_fd; csu/libc-start.c): what a dynamically linked program does between its
 * execve and main(), one implementation for every program, driven by data/userland/ldso.json
 * (scripts/userland/ldso.ts, from the recordings of the real Debian 12 guest): which libraries
 * the program links (DT_NEEDED, breadth first), each library's segments, the RELRO order, the TLS
 * block, and the page faults the real run took (replayed before the syscall they preceded, at the
 * same offset in the same mapping).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Op, Process, Prog, SysResult, TouchOp } from '../include/sched';
import type { ExecImage, ImageVma } from '../mm/mm';
import { isUserPointer } from '../include/mm_types';
import type { U } from './user';

interface LibSeg { off: number; len: number; prot: number; fileOff: number }
interface LibInfo { path: string; real: string; size: number; ino: number; pread: boolean; span: number; segs: LibSeg[]; bss: [number, number] | null; relro: [number, number] | null }
interface ProgramInfo {
  exe: string; exeMaps: ImageVma[]; exeRelro: [number, number] | null; ldsoRelro: [number, number] | null;
  libs: string[]; relroOrder: string[]; tls: number; faults: string[]; from: string;
  /** the faults of the program's other recorded runs, by argv (NUL-joined) */
  runs: Record<string, string[]>;
}
interface LdsoData { ldso: ImageVma[]; ldsoPath: string; cacheSize: number; libs: Record<string, LibInfo>; programs: Record<string, ProgramInfo> }

let data: LdsoData | null = null;
/** per program: its faults, those of its other runs by argv, and per run the faults of each fork child (scripts/userland/ldso.ts) */
interface FaultData { faults: string[]; runs: Record<string, string[]>; forks?: Record<string, string[][]> }
let faultData: Record<string, FaultData> | null = null;

/** data/userland/NAME found from this module's location (dist/src/machine/process or src/machine/process) */
export function userlandDataFile(name: string): string {
  let d = __dirname;
  for (let i = 0; i < 7; i++) {
    const f = path.join(d, 'data', 'userland', name);
    if (fs.existsSync(f)) return f;
    d = path.dirname(d);
  }
  return '';
}

function load(): LdsoData {
  if (data) return data;
  const f = userlandDataFile('ldso.json');
  data = f ? JSON.parse(fs.readFileSync(f, 'utf8')) as LdsoData : { ldso: [], ldsoPath: '', cacheSize: 0, libs: {}, programs: {} };
  return data;
}

/** the recorded faults of program `p` (read at the first exec: most of the loader's data) */
function faultRecord(p: ProgramInfo): FaultData | undefined {
  if (!faultData) {
    const f = userlandDataFile('ldso-faults.json');
    faultData = f ? JSON.parse(fs.readFileSync(f, 'utf8')) as typeof faultData : {};
  }
  const exe = Object.keys(load().programs).find((k) => load().programs[k] === p) ?? '';
  return faultData![exe];
}

/** the recorded faults of a program's run with `argv`, else of its own workload */
function faultsOf(p: ProgramInfo, argv: readonly string[]): readonly string[] {
  const rec = faultRecord(p);
  if (!rec) return [];
  return rec.runs[argv.join('\0')] ?? rec.faults;
}

/** the program whose data a program without its own recording borrows: a libc-only coreutil */
const GENERIC = '/bin/true';

/**
 * The recorded program exec'd by the name `exe` (as the recordings' execve named it), else the one
 * of file `real` (the path it resolves to), else the generic one
 */
function programInfo(exe: string, real = exe): ProgramInfo | null {
  const d = load();
  const named = (x: string): ProgramInfo | undefined =>
    d.programs[x] ?? d.programs[x.replace(/^\/usr\/bin\//, '/bin/')] ?? d.programs[x.replace(/^\/bin\//, '/usr/bin/')];
  return named(exe) ?? named(real) ?? d.programs[GENERIC] ?? null;
}

/** The libraries a program's loader maps (and the files the machine installs for them). */
export function sharedLibraries(): { path: string; real: string; size: number }[] {
  const d = load();
  return Object.values(d.libs).map((l) => ({ path: l.path, real: l.real, size: l.size }));
}
export function loaderFiles(): { ldso: string; ldsoSize: number; cacheSize: number } {
  const d = load();
  const end = d.ldso.reduce((a, v) => Math.max(a, v[0] + v[1]), 0);
  return { ldso: d.ldsoPath, ldsoSize: end, cacheSize: d.cacheSize };
}

/**
 * The VMAs as exec maps them: the maps snapshot's, with the PT_GNU_RELRO part (`r--p` in the
 * snapshot, after ld.so's mprotect) writable, as binfmt_elf maps the whole RW PT_LOAD: the loader
 * writes its relocations there (the recorded write faults) before the loader's mprotect seals it.
 */
function atExec(vmas: readonly ImageVma[], relro: [number, number] | null): readonly ImageVma[] {
  if (!relro) return vmas;
  return vmas.map((v) => (v[2] === 'r--p' && v[0] >= relro[0] && v[0] < relro[0] + relro[1] ? [v[0], v[1], 'rw-p', v[3]] as const : v));
}
const images = new Map<ProgramInfo, ExecImage>();

/** What exec maps for `exe` (mm.newMm), or undefined without loader data. */
export function execImage(exe: string, real = exe): ExecImage | undefined {
  const d = load();
  const p = programInfo(exe, real);
  if (!p || !d.ldso.length) return undefined;
  let img = images.get(p);
  if (!img) images.set(p, img = { exe: atExec(p.exeMaps, p.exeRelro), interp: atExec(d.ldso, p.ldsoRelro), interpPath: d.ldsoPath });
  return img;
}

const O_CLOEXEC = 0x80000;
const PROT_READ = 1, PROT_RW = 3;
const MAP_PRIVATE = 0x2, MAP_ANON_PRIV = 0x22, MAP_FIXED = 0x10, MAP_DENYWRITE = 0x800;
const AT_EMPTY_PATH = 0x1000;
const ARCH_SET_FS = 0x1002, RLIMIT_STACK = 3, RSEQ_SIG = 0x53053053;

/** ld.so from _dl_start to the program's entry: the syscalls of dl_main, library by library. */
function* loader(u: U, p: ProgramInfo): Generator<Op, void, SysResult> {
  const d = load();
  yield* u.sys('brk', [0]);
  yield* u.sys('mmap', [0, 8192, PROT_RW, MAP_ANON_PRIV, -1, 0]);
  yield* u.sys('access', ['/etc/ld.so.preload', 4]);
  const cfd = (yield* u.sys('openat', [-100, '/etc/ld.so.cache', O_CLOEXEC])).ret;
  let cache = 0;
  if (cfd >= 0) {
    yield* u.sys('newfstatat', [cfd, '', 0, AT_EMPTY_PATH]);
    cache = (yield* u.sys('mmap', [0, d.cacheSize, PROT_READ, MAP_PRIVATE, cfd, 0], { base: 'ld.so.cache' })).ret;
    yield* u.close(cfd);
  }
  const bases = new Map<string, number>();
  for (const name of p.libs) {
    const l = d.libs[name];
    if (!l) continue;
    const fd = (yield* u.sys('openat', [-100, l.path, O_CLOEXEC])).ret;
    if (fd < 0) continue;
    yield* u.read(fd, 832);
    if (l.pread) yield* u.pread(fd, 784, 64);
    yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
    if (l.pread) yield* u.pread(fd, 784, 64);
    const base = (yield* u.sys('mmap', [0, l.span, PROT_READ, MAP_PRIVATE | MAP_DENYWRITE, fd, 0], { base: name })).ret;
    bases.set(name, base);
    for (const s of l.segs) yield* u.sys('mmap', [base + s.off, s.len, s.prot, MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, fd, s.fileOff]);
    if (l.bss) yield* u.sys('mmap', [base + l.bss[0], l.bss[1], PROT_RW, MAP_PRIVATE | MAP_FIXED | 0x20, -1, 0]);
    yield* u.close(fd);
  }
  // the static TLS block and the thread control block of the main thread (elf/dl-tls.c, sysdeps/nptl)
  const tls = (yield* u.sys('mmap', [0, p.tls || 12288, PROT_RW, MAP_ANON_PRIV, -1, 0])).ret;
  yield* u.sys('arch_prctl', [ARCH_SET_FS, tls + 0x800]);
  yield* u.sys('set_tid_address', [tls + 0xad0]);
  yield* u.sys('set_robust_list', [tls + 0xae0, 24]);
  yield* u.sys('rseq', [tls + 0x1120, 0x20, 0, RSEQ_SIG]);
  // RELRO made read-only after relocation, in the order of _dl_relocate_object (dependencies first)
  for (const who of p.relroOrder) {
    // ld.so's minimal malloc taking another chunk between two relocations (cp, mv: many libraries)
    if (who.startsWith('mmap:')) { yield* u.sys('mmap', [0, Number(who.slice(5)), PROT_RW, MAP_ANON_PRIV, -1, 0]); continue; }
    const relro = who === 'exe' ? p.exeRelro : who === 'ld.so' ? p.ldsoRelro : d.libs[who]?.relro ?? null;
    const base = who === 'exe' || who === 'ld.so' ? u.t.proc.mm?.bases.get(who) : bases.get(who);
    if (relro && base !== undefined) yield* u.sys('mprotect', [base + relro[0], relro[1], PROT_READ]);
  }
  yield* u.sys('prlimit64', [0, RLIMIT_STACK, 0, 0]);
  if (cache) yield* u.sys('munmap', [cache, d.cacheSize]);
}

/**
 * libselinux's constructor (init_lib → selinuxfs_exists, selinux_getenforcemode): statfs of the two
 * selinuxfs mount points, /proc/filesystems read through stdio (the first malloc), the config file's
 * access().
 */
function* selinuxInit(u: U): Generator<Op, void, SysResult> {
  yield* u.sys('statfs', ['/sys/fs/selinux', 0]);
  yield* u.sys('statfs', ['/selinux', 0]);
  yield* u.malloc();
  const fd = (yield* u.sys('openat', [-100, '/proc/filesystems', O_CLOEXEC])).ret;
  if (fd >= 0) {
    yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
    for (;;) if ((yield* u.read(fd, 1024)).ret <= 0) break;
    yield* u.close(fd);
  }
  yield* u.sys('access', ['/etc/selinux/config', 0]);
}

/** Recorded faults by the ordinal of the syscall they preceded: [base, page, code, kernel, the page's index in its page table] */
function faultTable(faults: readonly string[]): Map<number, TouchOp[]> {
  const out = new Map<number, TouchOp[]>();
  for (const f of faults) {
    const [o, base, page, code, pt] = f.split(' ');
    const ord = Number(o);
    let list = out.get(ord);
    if (!list) out.set(ord, list = []);
    list.push({ k: 'touch', region: '', first: Number(page), count: 1, write: false, base, code: parseInt(code, 16), kernel: code.endsWith('k'), ptIdx: pt === undefined ? undefined : Number(pt) });
  }
  return out;
}
const tables = new Map<readonly string[], Map<number, TouchOp[]>>();

/**
 * Replays a recorded fault list (faultTable) along a program's ops: each fault before the syscall it
 * preceded (counted from the first the program issues), and at a syscall of `restAt` (its exit, a fork
 * child's exec) the faults the real run took before it that this run has not replayed (it issued fewer
 * syscalls; exit handlers, stdio's flush and free touch pages before the exit).
 */
class FaultReplay {
  private readonly faults: Map<number, TouchOp[]>;
  private ord = 0;
  private ownBuf = false;
  constructor(list: readonly string[], private readonly restAt: ReadonlySet<string>) {
    let faults = tables.get(list);
    if (!faults) tables.set(list, faults = faultTable(list));
    this.faults = faults;
  }

  /** the faults not replayed yet */
  *rest(): Generator<Op, void, SysResult> {
    const fs = this.faults;
    for (const k of [...fs.keys()].filter((o) => o >= this.ord).sort((a, b) => a - b)) {
      for (const f of fs.get(k)!) if (!(k === this.ord && this.ownBuf && f.kernel)) yield f;
    }
    this.ord = Infinity;
  }

  /** `g`'s ops with the faults before its syscalls */
  *along<T>(g: Generator<Op, T, SysResult>): Generator<Op, T, SysResult> {
    let r = g.next(undefined as unknown as SysResult);
    while (!r.done) {
      const op = r.value;
      if (op.k === 'sys') {
        if (this.restAt.has(op.name)) yield* this.rest();
        // the kernel-mode faults listed before a syscall were taken in the one before it: a read into a
        // buffer the program names faults that buffer in itself (mm/fault.ts kfault_buffer), so they are
        // not replayed after it
        for (const f of this.faults.get(this.ord) ?? []) if (!(this.ownBuf && f.kernel)) yield f;
        this.ownBuf = op.name === 'read' && isUserPointer(op.a[1]);
        this.ord++;
      }
      r = g.next(yield op);
    }
    return r.value;
  }
}
const AT_EXIT = new Set(['exit_group']);
const AT_EXEC_OR_EXIT = new Set(['execve', 'exit_group']);

/** fork children a process made since its exec (which recorded child's faults the next one replays) */
const forksSinceExec = new WeakMap<Process, number>();

/**
 * The program image exec starts (`main` with its libc, after ld.so), the recorded faults of the
 * program replayed before the syscalls they preceded (the syscalls counted from the first the new
 * image issues): those of its recorded run with the same argv where there is one, else those of
 * its own workload.  Programs the loader has no data for start at main.
 */
export function* startProgram(u: U, exe: string, main: Prog, argv: readonly string[] = [], real = exe): Prog {
  forksSinceExec.delete(u.t.proc);
  const p = programInfo(exe, real);
  if (!p) return yield* main;
  // the faults of the recorded run with the same arguments, else of the program's own workload
  const replay = new FaultReplay(faultsOf(p, argv), AT_EXIT);
  yield* replay.along(loader(u, p));
  if (p.libs.includes('libselinux.so.1')) yield* replay.along(selinuxInit(u));
  const status = yield* replay.along(main);
  yield* replay.rest();
  return status;
}

/**
 * What a fork child (clone without CLONE_VM) of `parent` runs: `prog`, with the faults the real run's
 * child of the same fork (the k-th of the parent's image: its recorded run with the same argv, else
 * its own workload's; past the last recorded, the last) took from its first return to user mode until
 * its execve or exit: its stores to the pages fork left copy-on-write (the stack, libc's and the
 * program's data, the heap) and the program text its empty page tables fault in again (fault-around).
 */
export function forkChildProgram(parent: Process, prog: Prog): Prog {
  const k = forksSinceExec.get(parent) ?? 0;
  forksSinceExec.set(parent, k + 1);
  const p = programInfo(parent.execName || parent.exe, parent.exe);
  const forks = p ? faultRecord(p)?.forks : undefined;
  if (!forks) return prog;
  const runs = forks[parent.argv.join('\0')] ?? Object.values(forks)[0];
  const list = runs?.[Math.min(k, runs.length - 1)];
  return list?.length ? new FaultReplay(list, AT_EXEC_OR_EXIT).along(prog) : prog;
}

/** The filesystem the loader needs (fs/namei.ts Fs, structurally). */
interface LoaderFs {
  lookup(p: string): unknown;
  mkdirp(p: string): unknown;
  symlink(p: string, target: string): unknown;
  createFile(p: string, content: { size: number; gen: (off: number, len: number) => Uint8Array }, mode?: number): unknown;
  procFile(p: string, show: () => string): unknown;
}

/**
 * The loader's files as on Debian 12 (merged /usr): /lib -> usr/lib, /lib64 -> usr/lib64, ld.so and
 * the shared libraries under /usr/lib/x86_64-linux-gnu (with their soname links), /etc/ld.so.cache;
 * sizes from the recordings' fstat.  Created after everything else so earlier inode numbers stay.
 */
export function installLoaderFiles(fs: LoaderFs, gen: (seed: number) => (off: number, len: number) => Uint8Array): void {
  const d = load();
  if (!d.ldso.length) return;
  const dir = '/usr/lib/x86_64-linux-gnu';
  fs.mkdirp(dir);
  fs.mkdirp('/usr/lib64');
  if (!fs.lookup('/lib')) fs.symlink('/lib', 'usr/lib');
  if (!fs.lookup('/lib64')) fs.symlink('/lib64', 'usr/lib64');
  const elf = (seed: number) => {
    const g = gen(seed);
    return (off: number, len: number): Uint8Array => {
      const b = g(off, len);
      // the ELF identification (ELFCLASS64, ELFDATA2LSB, EV_CURRENT) ld.so reads first
      const magic = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0];
      for (let i = off; i < Math.min(magic.length, off + len); i++) b[i - off] = magic[i];
      return b;
    };
  };
  const { ldsoSize, cacheSize } = loaderFiles();
  fs.createFile(`${dir}/ld-linux-x86-64.so.2`, { size: ldsoSize, gen: elf(0x1d50) }, 0o755);
  fs.symlink('/usr/lib64/ld-linux-x86-64.so.2', `/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2`);
  let seed = 0x11b0;
  for (const l of sharedLibraries()) {
    const real = l.real || `${dir}/${path.basename(l.path)}`;
    if (!fs.lookup(real)) fs.createFile(real, { size: l.size, gen: elf(seed++) }, 0o644);
    const link = `${dir}/${path.basename(l.path)}`;
    if (link !== real && !fs.lookup(link)) fs.symlink(link, path.basename(real));
  }
  if (!fs.lookup('/etc/ld.so.cache')) fs.createFile('/etc/ld.so.cache', { size: cacheSize, gen: gen(0x1dc4) }, 0o644);
  // what libselinux's constructor reads at every start of ls, cp, mkdir ...: the file systems registered
  // on the Debian 12 guest once ext4 is loaded (read there with od)
  if (!fs.lookup('/proc/filesystems')) {
    fs.procFile('/proc/filesystems', () => ['sysfs', 'tmpfs', 'proc', 'cgroup', 'cgroup2', 'cpuset', 'devtmpfs', 'debugfs', 'tracefs', 'securityfs',
      'sockfs', 'bpf', 'pipefs', 'ramfs', 'hugetlbfs', 'devpts', 'mqueue', 'pstore'].map((f) => `nodev\t${f}\n`).join('') + '\text3\n\text2\n\text4\n');
  }
}
