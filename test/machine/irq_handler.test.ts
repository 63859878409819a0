/**
 * irq:irq_handler_entry / irq_handler_exit (kernel/irq/handle.c __handle_irq_event_percpu: around each
 * action's handler). Expected values from data/recordings: ls-root's events run has 20
 * `irq_handler_entry: irq=4 name=ttyS0` (its graph run 20 __handle_irq_event_percpu calls), each THRE
 * drain `ret=handled` followed by the empty interrupt's `ret=unhandled`; the disk's are
 * `irq=24 name=ahci[0000:00:04.0] ... ret=handled` (pagecache-miss, idle; /proc/interrupts
 * `24: PCI-MSI 65536-edge ahci[0000:00:04.0]`).
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
});
