/**
 * Page-table state a fault leaves behind (mm/mm.ts faultDone), as Linux 6.1's mm/memory.c makes it, and
 * what the recordings of the real Debian 12 guest show of it:
 * - a read of anonymous memory maps the shared zero page (do_anonymous_page: no page allocated, no rss),
 *   so the program's later write to it is a write-protect fault that copies (do_wp_page -> wp_page_copy,
 *   whose ptep_clear_flush traces tlb_flush 'local mm shootdown' for one page: files' events run, 74 of
 *   its 130 tlb_flush events follow a fault's mm_page_alloc);
 * - a read fault of a file mapping maps its fault-around window (do_fault_around, fault_around_bytes
 *   64 KiB: the 16-page aligned block of the faulting address, within the VMA, its page table and the
 *   file), read-only in a private writable mapping, so a later write there is a copy-on-write of a present
 *   page (error code 7, do_wp_page) and not a do_cow_fault; a replayed fault places the window where the
 *   recorded run's address put it (its page-table index);
 * - exec's switch_mm to the new address space traces tlb_flush 'flush on task switch' (each execve of
 *   cat, echo and fork-wait's children has 3 tlb_flush events in its events run).
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { P_NONE, P_PRESENT, P_COW, PROT_READ, PROT_WRITE } from '../../src/machine/include/mm_types';
import { faultKind } from '../../src/machine/mm/mm';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import type { Inode } from '../../src/machine/include/fs';
import type { Task } from '../../src/machine/include/sched';

installKernelSemantics();

describe('page faults: zero page, fault-around, exec TLB flush (mm/mm.ts faultDone)', function () {
  this.timeout(120000);

  it('a read of anonymous memory maps the zero page; the write after it copies', () => {
    const m = new Machine({ cpus: 1, seed: 1, memMB: 2048 });
    const sh = m.procs.spawnShell('true', () => {}, () => {});
    const mm = sh.mm!;
    const heap = mm.region('heap', 4);
    const anon0 = m.mm.anonPages, rss0 = mm.rss;
    m.mm.faultDone('anon', heap, 1, mm, false);
    expect(heap.pages[1]).to.equal(P_COW);
    expect(m.mm.anonPages).to.equal(anon0);
    expect(mm.rss).to.equal(rss0);
    // the write: a write-protect fault that copies (the zero page is never reused)
    expect(faultKind(heap, heap.pages[1], true)).to.equal('wp');
    const plan = m.mm.faultPlan(null, mm, heap, 1, 'wp', true);
    expect(plan.wpCopy).to.equal(true);
    expect(plan.treeFeat).to.include('cp');
    m.mm.faultDone('wp', heap, 1, mm, true, null, plan);
    expect(heap.pages[1]).to.equal(P_PRESENT);
    expect(m.mm.anonPages).to.equal(anon0 + 1);
    expect(mm.rss).to.equal(rss0 + 1);
    // a write to an untouched page allocates at once
    m.mm.faultDone('anon', heap, 2, mm, true);
    expect(heap.pages[2]).to.equal(P_PRESENT);
    expect(m.mm.anonPages).to.equal(anon0 + 2);
  });

  it("a file read fault maps its fault-around window, read-only in a private writable mapping", () => {
    const m = new Machine({ cpus: 1, seed: 1, memMB: 2048 });
    const sh = m.procs.spawnShell('true', () => {}, () => {});
    const mm = sh.mm!;
    const ino = m.fs.lookup('/usr/lib/x86_64-linux-gnu/libc.so.6') as Inode;
    expect(ino && ino.size).to.be.greaterThan(64 * 4096);
    // a private writable mapping of 40 pages of the file, at a 64 KiB-aligned address
    const start = 0x7f1234500000;
    const r = mm.mapAt('data', start, 40, PROT_READ | PROT_WRITE, ino, 0, '');
    const rss0 = mm.rss;
    m.mm.faultDone('file', r, 5, mm, false);
    for (let i = 0; i < 40; i++) expect(r.pages[i]).to.equal(i < 16 ? P_COW : P_NONE);
    expect(mm.rss).to.equal(rss0 + 16);
    // a write in the window: copy-on-write of a present page, not a do_cow_fault
    expect(faultKind(r, r.pages[9], true)).to.equal('wp');
    expect(faultKind(r, r.pages[20], true)).to.equal('anon');
    // the window of a replayed fault lies where the recorded address put it: page 20 was the 4th of its block
    m.mm.faultDone('file', r, 20, mm, false, null, { treeFeat: [], thp: false, swapIo: false, ptIdx: 4 });
    for (let i = 16; i < 40; i++) expect(r.pages[i]).to.equal(i < 32 ? P_COW : P_NONE);
    // cut at the VMA's end
    m.mm.faultDone('file', r, 38, mm, false);
    for (let i = 32; i < 40; i++) expect(r.pages[i]).to.equal(P_COW);
    // a read-only mapping maps the pages present, and a write fault (do_cow_fault) maps none around it
    const ro = mm.mapAt('text', start + 0x100000, 32, PROT_READ, ino, 0, '');
    m.mm.faultDone('file', ro, 0, mm, false);
    for (let i = 0; i < 32; i++) expect(ro.pages[i]).to.equal(i < 16 ? P_PRESENT : P_NONE);
    const w = mm.mapAt('w', start + 0x200000, 32, PROT_READ | PROT_WRITE, ino, 0, '');
    m.mm.faultDone('anon', w, 3, mm, true);
    expect([...w.pages].filter((s) => s !== P_NONE).length).to.equal(1);
  });

  it("exec's switch to the new address space traces tlb_flush (3 per execve, as the recorded ones)", () => {
    const m = new Machine({ cpus: 2, seed: 1, memMB: 2048 });
    m.run('true');
    const inExec = new Map<number, number>();
    const counts: number[] = [];
    const cur = (): number => (m.executingCpu()?.ctx.task as Task | undefined)?.tid ?? -1;
    const onEnter = (_d: unknown, _regs: unknown, nr: unknown): void => { if (Number(nr) === 59) inExec.set(cur(), 0); };
    const onExit = (_d: unknown, regs: unknown): void => {
      const tid = cur();
      if ((regs as { orig_ax?: number } | null)?.orig_ax === 59 && inExec.has(tid)) { counts.push(inExec.get(tid)!); inExec.delete(tid); }
    };
    const onFlush = (): void => { const tid = cur(); if (inExec.has(tid)) inExec.set(tid, inExec.get(tid)! + 1); };
    const probes: [string, (...a: never[]) => void][] = [['sys_enter', onEnter], ['sys_exit', onExit], ['tlb_flush', onFlush]];
    for (const [n, f] of probes) tracepointProbeRegister(n, f as never, null);
    try {
      m.run('sh -c "/bin/true; /bin/true"');
    } finally {
      for (const [n, f] of probes) tracepointProbeUnregister(n, f as never, null);
    }
    expect(counts.length).to.be.greaterThan(1);
    for (const n of counts) expect(n).to.equal(3);
  });
});
