/**
 * The serial console /dev/ttyS0 (drivers/serial8250.ts): the device node, n_tty's output processing,
 * the THRE interrupts and their routing. Expected shapes from data/recordings (ps, ls-root: the
 * serial interrupts nested at uart_write's unlock on CPU1, a drain then an empty interrupt, an
 * io_serial_out per byte sent).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { onlcrChunks, SERIAL_IRQ, UART_FIFO_SIZE } from '../../src/machine/drivers/serial8250';
import { irqCpu } from '../../src/machine/kernel/irq';
import { OpenFile } from '../../src/machine/include/fs';
import { FtraceOps, FTRACE_OPS_FL_INITIALIZED, ftraceHitFn, registerFtraceFunction, unregisterFtraceFunction } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

const text = (a: Uint8Array[]): string[] => a.map((b) => Buffer.from(b).toString('latin1'));

/** Calls of `fns` while `run` runs: per function, per [task comm, context (0 task, 2 hardirq), cpu]. */
function countCalls(fns: string[], run: () => void): Map<string, number> {
  const out = new Map<string, number>();
  const op = new FtraceOps('serial_test', (_ip, _pip, _op, _regs, ctx) => {
    const name = symbolName(ftraceHitFn());
    if (!fns.includes(name)) return;
    const k = `${name} ${(ctx.task as { comm?: string } | null)?.comm ?? '?'} ${ctx.context} ${ctx.cpu}`;
    out.set(k, (out.get(k) ?? 0) + 1);
  }, FTRACE_OPS_FL_INITIALIZED, 'serial_test');
  registerFtraceFunction(op);
  try { run(); } finally { unregisterFtraceFunction(op); }
  return out;
}

describe('the serial console /dev/ttyS0 (a 16550A on IRQ 4)', () => {
  afterEach(resetKernel);

  it('is char device 4,64, crw--w---- root:tty, as on Debian 12', () => {
    const m = new Machine({ seed: 1 });
    expect(m.run('ls -l /dev/ttyS0').out).to.match(/^crw--w---- 1 root tty 4, 64 .* \/dev\/ttyS0\n$/);
  });

  it('n_tty output processing: a uart_write per run of text up to a newline or tab, "\\r\\n" per newline', () => {
    expect(text(onlcrChunks(Buffer.from('hello\n')))).to.deep.equal(['hello', '\r\n']);
    expect(text(onlcrChunks(Buffer.from('bin  dev\tetc\n\nx')))).to.deep.equal(['bin  dev', '\tetc', '\r\n', '\r\n', 'x']);
    expect(text(onlcrChunks(Buffer.from('\tx')))).to.deep.equal(['\tx']);
  });

  it('what a program writes goes out on the line with ONLCR\'s carriage returns', () => {
    const m = new Machine({ seed: 1 });
    let line = '';
    m.serial.sink = (s) => { line += s; };
    expect(m.run('echo hello > /dev/ttyS0; printf "a\\tb\\n" > /dev/ttyS0; echo $?').out).to.equal('0\n');
    expect(line).to.equal('hello\r\na\tb\r\n');
  });

  it('IRQ 4 is routed to CPU1, as the recorded guest\'s /proc/interrupts counts it', () => {
    const m = new Machine({ seed: 1 });
    expect(irqCpu(m, SERIAL_IRQ).id).to.equal(1);
  });

  it('a writer on CPU1 takes the THRE interrupts in its write; one elsewhere leaves them to CPU1', function () {
    this.timeout(60000);
    const fns = ['serial8250_handle_irq', 'serial8250_tx_chars', 'io_serial_out', 'uart_write'];
    for (const cpu of [1, 2]) {
      const m = new Machine({ cpus: 4, seed: 1 });
      const tty = m.fs.lookup('/dev/ttyS0')!;
      let line = '';
      m.serial.sink = (s) => { line += s; };
      const calls = countCalls(fns, () => {
        const f = new OpenFile('dev', tty, 1);
        const p = m.procs.spawnExec(m.procs.init, '/usr/bin/echo', ['echo', '0123456789abcdefghijklmnopqrstuvwxyz'], [m.fs.devNullFile(), f, f], '/root', cpu);
        m.runUntil(() => p.finished, 10e9);
      });
      expect(line).to.equal('0123456789abcdefghijklmnopqrstuvwxyz\r\n');
      const sum = (re: RegExp): number => [...calls].filter(([k]) => re.test(k)).reduce((a, [, n]) => a + n, 0);
      // echo's one write: uart_write for the text and for "\r\n"
      expect(sum(/^uart_write echo 0 /)).to.equal(2);
      if (cpu === 1) {
        // nested in the writer, in hardirq context on CPU1: for each uart_write a drain (36 bytes: the
        // recorded drain of the nearest size, 16 bytes per FIFO fill; "\r\n": 2) and an empty interrupt
        expect(sum(/^serial8250_tx_chars echo 2 1$/)).to.equal(Math.ceil(36 / UART_FIFO_SIZE) + 1);
        // an io_serial_out per byte sent and one per __stop_tx (the drain's size within the recorded ones' spacing)
        expect(sum(/^io_serial_out echo 2 1$/)).to.be.within(36 + 2 + 2 - 2, 36 + 2 + 2 + 2);
        expect(sum(/^serial8250_handle_irq echo 2 1$/)).to.equal(Math.ceil(36 / UART_FIFO_SIZE) + 1 + 2 + 2);
        expect(sum(/ 2 [023]$/)).to.equal(0);
      } else {
        expect(sum(/^serial8250_\w+ echo 2/)).to.equal(0);
        expect(sum(/^serial8250_tx_chars \S+ 2 1$/)).to.be.greaterThan(0);
      }
    }
  });

  it('stap sees the serial interrupts of `ls / > /dev/ttyS0`', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(`
      global n
      probe kernel.function("serial8250_tx_chars") { n[cpu()]++ }
      probe end { foreach (c in n) printf("cpu%d %s\\n", c, n[c] > 0 ? "tx" : "-") }`), "sh -c 'ls / > /dev/ttyS0'");
    expect(r.err).to.equal('');
    expect(r.out).to.equal('cpu1 tx\n');
  });
});
