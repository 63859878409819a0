/**
 * The boot services' address spaces as the real Debian 12 guest had them (data/userland/services.json
 * and services_vmas.json,
 * scripts/userland/services.ts, from the recorder's system snapshot of /proc/PID/smaps and stat): each
 * VMA at its recorded address, with its permissions, file and offset, and as many resident pages as
 * smaps counted (Rss), the anonymous ones taken from free memory as the guest's had been; and the
 * task flags, page faults and CPU time the service had by then (/proc/PID/stat's flags, minflt,
 * majflt, utime, stime). So `ps aux`, /proc/PID/maps, status and stat show a service as the guest did, rather than
 * the single text VMA the machine gives a program it has no image of.
 */
import * as fs from 'fs';
import { userlandDataFile } from '../process/ldso';
import { markBootAnonPages } from '../mm/mm';
import { type Mm, P_PRESENT, PAGE_SIZE, PROT_EXEC, PROT_READ, PROT_WRITE } from '../include/mm_types';
import type { Process } from '../include/sched';
import type { ProcMachine } from '../process/procs';

export interface RecordedService {
  comm: string; flags: number; minflt: number; majflt: number; utime: number; stime: number; rssKb: number; ownKb: number;
  /** its index in services_vmas.json */
  index: number;
}

let data: RecordedService[] | null = null;
function load(): RecordedService[] {
  if (data) return data;
  const f = userlandDataFile('services.json');
  data = f ? (JSON.parse(fs.readFileSync(f, 'utf8')) as { services: RecordedService[] }).services.map((s, index) => ({ ...s, index })) : [];
  return data;
}
let vmas: string[][] | null = null;
function loadVmas(): string[][] {
  if (vmas) return vmas;
  const f = userlandDataFile('services_vmas.json');
  vmas = f ? (JSON.parse(fs.readFileSync(f, 'utf8')) as { vmas: string[][] }).vmas : [];
  return vmas;
}

/** USER_HZ clock ticks (/proc/PID/stat's utime, stime) in ns */
const TICK_NS = 10e6;
const LABELS: Record<string, string> = { '[heap]': 'heap', '[stack]': 'stack', '[vvar]': 'vvar', '[vdso]': 'vdso' };

/** The recorded services by comm, each name's in the guest's pid order (nginx: the master, then its workers). */
export function recordedServices(): Map<string, RecordedService[]> {
  const out = new Map<string, RecordedService[]>();
  for (const s of load()) {
    const l = out.get(s.comm) ?? [];
    l.push(s);
    out.set(s.comm, l);
  }
  return out;
}

/**
 * Give process `p` (a service started at boot) the recorded address space `rec`: its resident set and
 * anonymous pages now (taken from free memory), its VMAs when first looked at (they replace the ones
 * newMm made, with the same region names for the heap, stack, vdso and the program's text, which the
 * machine's own paths look up; the first Rss pages of each resident). Its main thread gets the
 * recorded task flags, fault counts and CPU time.
 */
export function useRecordedService(m: ProcMachine, p: Process, rec: RecordedService): void {
  if (!useRecordedLayout(m, p, rec)) return;
  const t = p.threads[0];
  t.utime = rec.utime * TICK_NS;
  t.stime = rec.stime * TICK_NS;
  t.minFlt = rec.minflt;
  t.majFlt = rec.majflt;
  // (PF_SUPERPRIV: a root service used its privileges)
  t.pflags = rec.flags;
}

/** `rec`'s resident set and anonymous pages now, its VMAs when first looked at; false when `p` has no address space */
function useRecordedLayout(m: ProcMachine, p: Process, rec: RecordedService): boolean {
  const mm = p.mm;
  if (!mm) return false;
  mm.rss = rec.rssKb / 4;
  // the pages of its anonymous mappings and the copies-on-write of its file mappings are its own
  // memory (exit_mmap gives the first back); a file mapping's other pages are page cache pages
  m.mm.takeBootPages(rec.ownKb / 4);
  mm.lazyLayout = (x) => buildLayout(m, x, rec);
  return true;
}

/**
 * The console's shell (tapsim shell -c, FILE or interactive): there when the machine is handed over,
 * started without an exec the run would pay for, it has a dash's address space as the guest had one
 * (the recorder's dash, services.ts: its VMAs and resident pages); its fault counts and CPU time
 * start at the hand-over.
 */
export function useRecordedShell(m: ProcMachine, p: Process): void {
  const rec = load().find((s) => s.comm === 'sh');
  if (rec) useRecordedLayout(m, p, rec);
}

/** The recorded VMAs of `rec` in `mm`, in place of what it had. */
function buildLayout(m: ProcMachine, mm: Mm, rec: RecordedService): void {
  mm.regions.clear();
  const lines = loadVmas()[rec.index] ?? [];
  // (the program's own file: mapped first, at the lowest address)
  const exe = lines[0]?.split(' ').slice(6, -2).join(' ');
  let seq = 0;
  for (const line of lines) {
    // (the path may hold spaces: a shared anonymous mapping is "/dev/zero (deleted)")
    const f = line.split(' ');
    const [s, e, perms, off, dev, inode] = f, [rssK, anonK] = f.slice(-2), file = f.slice(6, -2).join(' ');
    const start = parseInt(s, 16), n = (parseInt(e, 16) - start) / PAGE_SIZE;
    const prot = (perms[0] === 'r' ? PROT_READ : 0) | (perms[1] === 'w' ? PROT_WRITE : 0) | (perms[2] === 'x' ? PROT_EXEC : 0);
    const label = file === '-' ? '' : file;
    const ino = file.startsWith('/') ? m.fs.lookup(file) : null;
    let name = LABELS[file];
    if (!name && file === exe) name = perms[2] === 'x' ? 'text' : mm.bases.has('exe') ? `exe+${(start - mm.bases.get('exe')!).toString(16)}` : 'exe';
    if (!name) name = `${file === '-' ? 'anon' : file}@${seq++}`;
    const r = mm.mapAt(name, start, n, prot, ino, parseInt(off, 16), label);
    r.shared = perms[3] === 's';
    // (a file the machine's tree does not have: the guest's device and inode, as its maps showed them)
    if (!ino && file.startsWith('/')) r.mapsId = `${dev} ${inode}`;
    if (name === 'exe') mm.bases.set('exe', start);
    const resident = Math.min(n, Number(rssK) / 4), anon = Math.min(resident, Number(anonK) / 4);
    for (let i = 0; i < resident; i++) r.pages[i] = P_PRESENT;
    // (in a file mapping, the copies-on-write are its first pages here)
    if (anon && r.fileBacked) markBootAnonPages(r, 0, anon);
    r.anonVma = anon > 0;
    if (name === 'heap') { mm.brkStart = start; mm.brk = r.end; mm.bases.set('heap', start); }
    if (name === 'stack') mm.stackTop = r.end;
    if (name === 'vdso') mm.bases.set('vdso', start);
  }
}
