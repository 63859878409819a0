/**
 * irq:irq_handler_entry / irq_handler_exit (kernel/irq/handle.c __handle_irq_event_percpu: around each
 * action's handler). Expected values from data/recordings: ls-root's events run has 20
 * `irq_handler_entry: irq=4 name=ttyS0` (its graph run 20 __handle_irq_event_percpu calls), each THRE
 * drain `ret=handled` followed by the empty interrupt's `ret=unhandled`; the disk's are
 * `irq=24 name=ahci[0000:00:04.0] ... ret=handled` (pagecache-miss, idle; /proc/interrupts
 * `24: PCI-MSI 65536-edge ahci[0000:00:04.0]`).  The disk's interrupt is taken on CPU2 whatever CPU
 * submitted the request: the guest's /proc/interrupts counts IRQ 24 on CPU2 only, and the recordings'
 * workloads see it only on CPU2 (dd-write's events run on CPU2: 30; swap's on CPU3: none of 262 requests).
 */
import { expect } from 'chai';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';
import { Machine } from '../../src/machine/machine';
import { OpenFile } from '../../src/machine/include/fs';
import { FtraceOps, FTRACE_OPS_FL_INITIALIZED, ftraceHitFn, registerFtraceFunction, unregisterFtraceFunction } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';

const SCRIPT = `global n
  probe kernel.trace("irq_handler_entry") { n[sprintf("entry irq=%d name=%s", $irq, kernel_string($action->name))]++ }
  probe kernel.trace("irq_handler_exit") { n[sprintf("exit irq=%d ret=%d", $irq, $ret)]++ }
  probe kernel.function("__handle_irq_event_percpu") { n["__handle_irq_event_percpu"]++ }
  probe end { foreach (k+ in n) printf("%s: %d\\n", k, n[k]) }`;

describe('irq_handler_entry / irq_handler_exit', () => {
  afterEach(resetKernel);

  it('the serial port\'s interrupts: one pair per handler call, IRQ 4 ttyS0, the drain handled, the empty one not', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(SCRIPT), "sh -c 'echo hello > /dev/ttyS0'");
    expect(r.err).to.equal('');
    // one drain ("hello\r\n" went out together: the writer is not on CPU1) and the empty interrupt after it
    expect(r.out).to.equal('__handle_irq_event_percpu: 2\nentry irq=4 name=ttyS0: 2\nexit irq=4 ret=0: 1\nexit irq=4 ret=1: 1\n');
  });

  it('the disk\'s completion interrupts: IRQ 24, ahci[0000:00:04.0], handled', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(SCRIPT), 'dd if=/root/YEYEYE.txt of=/dev/null bs=3000 count=300');
    const rows = new Map(r.out.split('\n').filter((l) => l.includes(': ')).map((l) => [l.slice(0, l.lastIndexOf(': ')), Number(l.slice(l.lastIndexOf(': ') + 2))]));
    const n = rows.get('__handle_irq_event_percpu') ?? 0;
    expect(n).to.be.greaterThan(0);
    expect(rows.get('entry irq=24 name=ahci[0000:00:04.0]')).to.equal(n);
    expect(rows.get('exit irq=24 ret=1')).to.equal(n);
  });

  it('the disk\'s interrupt and its BLOCK softirq run on CPU2, whichever CPU submitted the request', function () {
    this.timeout(60000);
    const fns = ['ahci_qc_issue', 'ahci_single_level_irq_intr', 'blk_done_softirq'];
    for (const cpu of [0, 3]) {
      const m = new Machine({ cpus: 4, seed: 1 });
      const calls = new Map<string, number>();
      const op = new FtraceOps('irq_route_test', (_ip, _pip, _op, _regs, ctx) => {
        const name = symbolName(ftraceHitFn());
        if (fns.includes(name)) calls.set(`${name} ${ctx.cpu}`, (calls.get(`${name} ${ctx.cpu}`) ?? 0) + 1);
      }, FTRACE_OPS_FL_INITIALIZED, 'irq_route_test');
      registerFtraceFunction(op);
      try {
        const out = new OpenFile('dev', m.fs.lookup('/dev/null'), 1);
        const p = m.procs.spawnExec(m.procs.init, '/usr/bin/dd', ['dd', 'if=/root/YEYEYE.txt', 'of=/dev/null', 'bs=4096', 'count=4', 'iflag=direct'], [m.fs.devNullFile(), out, out], '/root', cpu);
        m.runUntil(() => p.finished, 10e9);
      } finally { unregisterFtraceFunction(op); }
      const on = (fn: string, c: number): number => calls.get(`${fn} ${c}`) ?? 0;
      const all = (fn: string): number => [0, 1, 2, 3].reduce((a, c) => a + on(fn, c), 0);
      // dd's four direct reads issued from its CPU (it stays there: the CPU is idle when it wakes)
      expect(on('ahci_qc_issue', cpu), `issue on ${cpu}`).to.equal(4);
      expect(all('ahci_single_level_irq_intr')).to.equal(4);
      expect(on('ahci_single_level_irq_intr', 2), `irq of dd on ${cpu}`).to.equal(4);
      expect(on('blk_done_softirq', 2)).to.equal(all('blk_done_softirq'));
      expect(all('blk_done_softirq')).to.be.greaterThan(0);
    }
  });
});
