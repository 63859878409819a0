/**
 * irq:irq_handler_entry / irq_handler_exit (kernel/irq/handle.c __handle_irq_event_percpu: around each
 * action's handler). Expected values from data/recordings: ls-root's events run has 20
 * `irq_handler_entry: irq=4 name=ttyS0` (its graph run 20 __handle_irq_event_percpu calls), each THRE
 * drain `ret=handled` followed by the empty interrupt's `ret=unhandled`; the disk's are
 * `irq=24 name=ahci[0000:00:04.0] ... ret=handled` (pagecache-miss, idle; /proc/interrupts
 * `24: PCI-MSI 65536-edge ahci[0000:00:04.0]`), taken on CPU2 whichever CPU issued the request (the
 * guest's /proc/interrupts: all 858 on CPU2; every recorded events run's irq=24 is on CPU2: dd-direct-write's
 * dd issues on CPU1 and takes none; kernel/irq.ts MSI_ROUTES).
 */
import { expect } from 'chai';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

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

  it('the disk\'s interrupt is taken on CPU2 (its MSI\'s affinity), whichever CPU issued the request', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(`global irq, issue
      probe kernel.trace("irq_handler_entry") { if ($irq == 24) irq[cpu()]++ }
      probe kernel.trace("block_rq_issue") { issue[cpu()]++ }
      probe end { foreach (c+ in irq) printf("irq cpu%d: %d\\n", c, irq[c]); foreach (c+ in issue) printf("issue cpu%d: %d\\n", c, issue[c]) }`),
    'dd if=/root/YEYEYE.txt of=/dev/null bs=3000 count=300');
    const lines = r.out.trim().split('\n');
    const irqs = lines.filter((l) => l.startsWith('irq '));
    expect(irqs.length).to.equal(1);
    expect(irqs[0]).to.match(/^irq cpu2: [1-9]/);
    // requests issued from other CPUs than CPU2 too
    expect(lines.filter((l) => l.startsWith('issue ') && !l.startsWith('issue cpu2:')).length).to.be.greaterThan(0);
  });
});
