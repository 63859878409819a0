/**
 * Memory: physical page accounting with watermarks, per-process address spaces made of regions
 * (include/mm_types.ts; page state per page: absent, present, COW-shared after fork, swapped
 * out), the page cache's accounting (per-inode page states are `Inode.pc`, mm/filemap.ts),
 * reclaim by kswapd (file pages dropped, anon pages swapped out when swap is on, by
 * swappiness), swap devices and /proc/sys/vm tunables; faults of a program touching memory.
 */
import { perfSw, PERF_COUNT_SW_PAGE_FAULTS } from '../kernel/perf_events';
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Process, Task, TouchOp } from '../include/sched';
import type { Inode } from '../include/fs';
import { Mm, Region, SwapDev, P_NONE, P_PRESENT, P_COW, P_SWAPPED } from '../include/mm_types';
import { pushPath, newEnv } from '../paths/kexec';
import type { Sched } from '../kernel/sched/fair';
import type { BlockLayer } from '../block/core';

/**
 * The machine as memory management uses it: memory itself, the scheduler (waking kswapd), the
 * block layer, and from the filesystem above, path lookup and the inodes with dirty pages.
 */
export interface MmMachine extends CpuMachine {
  readonly mm: MemSys;
  readonly sched: Sched;
  readonly blk: BlockLayer;
  readonly fs: { lookup(p: string, cwd?: string, nofollow?: boolean): Inode | null; readonly dirty: Set<Inode> };
}

export class MemSys {
  readonly totalPages: number;
  freePages: number;
  anonPages = 0;
  filePages = 0;
  kernelPages: number;
  readonly sysctl: Record<string, number> = {
    swappiness: 60, dirty_ratio: 20, dirty_background_ratio: 10, vfs_cache_pressure: 100,
    min_free_kbytes: 67584, overcommit_memory: 0, page_cluster: 3, drop_caches: 0, dirty_expire_centisecs: 3000,
    dirty_writeback_centisecs: 500,
  };
  swaps: SwapDev[] = [];
  /** FIFO victims: anon [region, idx, mm] and file [inode, idx] */
  private anonLru: [Region, number, Mm][] = [];
  private anonHead = 0;
  private fileLru: [Inode, number][] = [];
  private fileHead = 0;
  kswapd: Task | null = null;
  pgfault = 0;
  pgmajfault = 0;
  pswpin = 0;
  pswpout = 0;
  pgsteal = 0;
  cowFaults = 0;
  constructor(private m: MmMachine, memMB: number) {
    this.totalPages = memMB * 256;
    this.kernelPages = Math.floor(this.totalPages * 0.06);
    this.freePages = this.totalPages - this.kernelPages;
  }

  get minPages(): number { return Math.max(128, Math.floor(this.sysctl.min_free_kbytes / 4 * Math.min(1, this.totalPages / 524288))); }
  get lowPages(): number { return Math.floor(this.minPages * 1.25); }
  get highPages(): number { return Math.floor(this.minPages * 1.5); }
  get swapTotal(): number { return this.swaps.reduce((a, s) => a + s.slots, 0); }
  get swapUsed(): number { return this.swaps.reduce((a, s) => a + s.used, 0); }

  newMm(p: Process, exe: string): Mm {
    const mm = new Mm();
    const exeIno = this.m.fs.lookup(exe);
    mm.region('text', 64, exeIno);
    mm.region('heap', 64);
    mm.region('stack', 16);
    return mm;
  }

  dupMm(src: Mm, p: Process): Mm {
    const mm = new Mm();
    for (const [k, r] of src.regions) {
      const nr = new Region(k, r.pages.length, r.file, r.fileOff);
      for (let i = 0; i < r.pages.length; i++) {
        const s = r.pages[i];
        if (s === P_PRESENT || s === P_COW) {
          const st = r.file ? P_PRESENT : P_COW;
          r.pages[i] = st;
          nr.pages[i] = st;
          mm.rss++;
        } else if (s === P_SWAPPED) nr.pages[i] = P_NONE;
      }
      mm.regions.set(k, nr);
    }
    return mm;
  }

  releaseMm(mm: Mm): void {
    for (const r of mm.regions.values()) {
      for (let i = 0; i < r.pages.length; i++) {
        const s = r.pages[i];
        if (s === P_PRESENT && !r.file) { this.anonPages--; this.freePages++; }
        if (s === P_SWAPPED) this.swapFreeSlot();
        r.pages[i] = P_NONE;
      }
    }
    mm.rss = 0;
  }

  private swapFreeSlot(): void {
    for (const s of this.swaps) if (s.used > 0) { s.used--; return; }
  }

  /** Take a free page for anon or page cache use; wakes kswapd under the low watermark. */
  allocPage(kind: 'anon' | 'file'): void {
    if (this.freePages <= this.minPages) this.reclaimNow(32);
    this.freePages--;
    if (kind === 'anon') this.anonPages++; else this.filePages++;
    if (this.freePages < this.lowPages) this.wakeKswapd();
  }

  wakeKswapd(): void {
    const k = this.kswapd;
    if (k && k.state !== 0 && !k.woken) {
      k.woken = true;
      this.m.after(1000, () => { k.woken = false; this.m.sched.wake(k); });
    }
  }

  addFileLru(ino: Inode, idx: number): void {
    this.fileLru.push([ino, idx]);
    if (this.fileHead > 65536) { this.fileLru = this.fileLru.slice(this.fileHead); this.fileHead = 0; }
  }
  addAnonLru(r: Region, idx: number, mm: Mm): void {
    this.anonLru.push([r, idx, mm]);
    if (this.anonHead > 65536) { this.anonLru = this.anonLru.slice(this.anonHead); this.anonHead = 0; }
  }

  /** Pick up to n victims: returns lists of file pages dropped and anon pages to swap out. */
  reclaimVictims(n: number): { file: number; anon: [Region, number, Mm][] } {
    const swapOk = this.swaps.length > 0 && this.swapUsed < this.swapTotal;
    const anonShare = swapOk ? Math.round(n * this.sysctl.swappiness / 200) : 0;
    const anon: [Region, number, Mm][] = [];
    while (anon.length < anonShare && this.anonHead < this.anonLru.length) {
      const v = this.anonLru[this.anonHead++];
      if (v[0].pages[v[1]] === P_PRESENT && v[2].users > 0) anon.push(v);
    }
    let file = 0;
    while (file < n - anon.length && this.fileHead < this.fileLru.length) {
      const [ino, idx] = this.fileLru[this.fileHead++];
      if (ino.pc[idx] === 1) { ino.pc[idx] = 0; ino.cachedPages--; this.filePages--; this.freePages++; file++; }
    }
    return { file, anon };
  }

  swapOut(v: [Region, number, Mm]): void {
    const [r, i, mm] = v;
    r.pages[i] = P_SWAPPED;
    mm.rss--; mm.swapents++;
    this.anonPages--; this.freePages++;
    const dev = this.swaps.find((s) => s.used < s.slots);
    if (dev) dev.used++;
    this.pswpout++;
  }

  /** Synchronous reclaim for allocations at the min watermark (direct reclaim semantics). */
  reclaimNow(n: number): void {
    const v = this.reclaimVictims(n);
    for (const a of v.anon) this.swapOut(a);
    this.pgsteal += v.file + v.anon.length;
  }

  /** Page faults for a touch op; false when a fault path was pushed (resume after it). */
  touch(c: Cpu, t: Task, op: TouchOp): boolean {
    const mm = t.proc.mm;
    if (!mm) return true;
    const r = mm.region(op.region, op.first + op.count);
    let i = (t.scratch.touchI as number | undefined) ?? op.first;
    const end = op.first + op.count;
    for (; i < end; i++) {
      const s = r.pages[i];
      let kind = '';
      if (s === P_NONE) kind = r.file ? 'file' : 'anon';
      else if (s === P_COW && op.write) kind = 'wp';
      else if (s === P_SWAPPED) kind = 'swap';
      else { this.m.now += 3; continue; }
      t.scratch.touchI = i + 1;
      this.pgfault++;
      if (perfSw.active) perfSw.event(PERF_COUNT_SW_PAGE_FAULTS, c.ctx);
      const low = this.freePages < this.minPages;
      pushPath(t.ks, 'page_fault', newEnv('page_fault', { kind, region: r, idx: i, mm, reclaim: low }));
      return false;
    }
    t.scratch.touchI = undefined;
    return true;
  }

  /** Apply a resolved fault. */
  faultDone(kind: string, r: Region, i: number, mm: Mm): void {
    if (kind === 'anon') { this.allocPage('anon'); r.pages[i] = P_PRESENT; mm.rss++; this.addAnonLru(r, i, mm); }
    else if (kind === 'file') { r.pages[i] = P_PRESENT; mm.rss++; }
    else if (kind === 'wp') { this.cowFaults++; this.allocPage('anon'); r.pages[i] = P_PRESENT; this.addAnonLru(r, i, mm); }
    else if (kind === 'swap') {
      this.allocPage('anon'); r.pages[i] = P_PRESENT; mm.rss++; mm.swapents--; this.swapFreeSlot(); this.pswpin++; this.pgmajfault++;
      this.addAnonLru(r, i, mm);
    }
  }

  tick(_c: Cpu): void {
    if (this.freePages < this.lowPages) this.wakeKswapd();
  }

  /** /proc/meminfo */
  meminfo(): string {
    const kb = (p: number) => `${String(p * 4).padStart(8)} kB`;
    const lines: [string, number][] = [
      ['MemTotal', this.totalPages], ['MemFree', this.freePages], ['MemAvailable', this.freePages + this.filePages],
      ['Buffers', 2048], ['Cached', this.filePages], ['SwapCached', 0], ['Active', Math.floor((this.anonPages + this.filePages) / 2)],
      ['Inactive', Math.ceil((this.anonPages + this.filePages) / 2)], ['AnonPages', this.anonPages],
      ['SwapTotal', this.swapTotal], ['SwapFree', this.swapTotal - this.swapUsed], ['Slab', Math.floor(this.kernelPages / 3)],
    ];
    return lines.map(([k, v]) => `${(k + ':').padEnd(16)}${kb(v)}\n`).join('');
  }
}
