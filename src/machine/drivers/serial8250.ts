/**
 * The serial port behind /dev/ttyS0 (drivers/tty/serial/8250): a 16550A UART at I/O port 0x3f8 on IRQ 4,
 * char device 4:64, the recorded guest's console (console=ttyS0; its termios: TCGETS c_cflag
 * B9600|CS8|CREAD|HUPCL|CLOCAL, as ls's and ps's in data/recordings/ps).
 *
 * A write(2) goes through n_tty_write with OPOST|ONLCR: each run of text up to a newline or a tab is
 * one uart_write (process_output_block), the newline another ("\r\n", do_output_char; onlcrChunks). uart_write copies the
 * bytes into the port's circular buffer (state->xmit, UART_XMIT_SIZE bytes) and serial8250_start_tx
 * enables the THR-empty interrupt (IER.THRI: its io_serial_out). The recorded guest's UART is QEMU's
 * 16550A, whose transmitter sends each byte as the THR is written, whatever the baud rate: the THRE
 * interrupt is pending as soon as the writer's uart_write has queued its bytes, and is taken where the
 * CPU it is routed to re-enables interrupts (nested at uart_write's spin_unlock_irqrestore when the
 * writer runs there: every serial interrupt of the recordings is there). Its handler
 * (serial8250_handle_irq) refills the 16-byte FIFO (serial8250_tx_chars: an io_serial_out per byte, up to
 * 16) until the buffer is empty, then stops the transmitter (__stop_tx: one io_serial_out more), and a
 * second interrupt right after finds nothing pending (the recordings show the pair after every
 * uart_write). So the writer never waits for room (n_tty_write's wait_woken is never reached in them).
 *
 * The interrupts run the trees the recordings show for the number of bytes drained (`irq:__common_interrupt`
 * variants through serial8250_interrupt), on the CPU the machine's IRQ routing gives IRQ 4
 * (kernel/irq.ts). What goes out on the line (ONLCR's "\r\n" included) is handed to `sink`.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Env } from '../include/kstack';
import type { CharDevice } from '../include/fs';
import { Semantics } from '../paths/semantics';
import { definePaths } from '../paths/dsl';
import { H_CONT, H_PUSHED, newEnv, pushPath } from '../paths/kexec';
import { modelKey, modelFunctions, variantCode, parseModelShape, type ModelKey, type ModelVariant } from '../paths/model';
import { shapeCallCounts } from '../paths/compile';
import { Prng } from '../core/prng';
import { irqCpu } from '../kernel/irq';

/** size of the port's circular transmit buffer (include/linux/serial_core.h UART_XMIT_SIZE = PAGE_SIZE) */
export const UART_XMIT_SIZE = 4096;
/** a 16550A's transmit FIFO (tx_loadsz): bytes serial8250_tx_chars writes per THRE interrupt pass */
export const UART_FIFO_SIZE = 16;
/** the legacy COM1 interrupt line */
export const SERIAL_IRQ = 4;

export interface SerialMachine extends CpuMachine {
  readonly serial: Uart8250;
}

/** The recorded serial interrupt trees: by bytes drained (0: the interrupt that finds nothing pending). */
interface IrqTrees { key: ModelKey; byBytes: Map<number, ModelVariant[]>; sizes: number[] }
let trees: IrqTrees | null | undefined;
function irqTrees(): IrqTrees | null {
  if (trees !== undefined) return trees;
  trees = null;
  const key = modelKey('irq:__common_interrupt');
  const fns = modelFunctions();
  const [handler, tx, out] = ['serial8250_interrupt', 'serial8250_tx_chars', 'io_serial_out'].map((f) => fns.indexOf(f));
  if (!key || handler < 0) return trees;
  const byBytes = new Map<number, ModelVariant[]>();
  for (const v of key.variants) {
    const cnt = shapeCallCounts(parseModelShape(v.shape));
    if (!cnt.get(handler)) continue;
    // a drain: one io_serial_out per byte and the __stop_tx one
    const n = cnt.get(tx) ? Math.max(0, (cnt.get(out) ?? 0) - 1) : 0;
    let l = byBytes.get(n);
    if (!l) byBytes.set(n, l = []);
    l.push(v);
  }
  if (byBytes.size) trees = { key, byBytes, sizes: [...byBytes.keys()].sort((a, b) => a - b) };
  return trees;
}

/**
 * Split what a write hands n_tty into its uart_write calls under OPOST|ONLCR (n_tty.c
 * process_output_block / do_output_char): the text up to a newline or a tab is one, a newline is
 * another ("\r\n"); a tab goes in through tty_put_char (uart_put_char: into the buffer, no uart_write),
 * so it leaves with the next uart_write's bytes.
 */
export function onlcrChunks(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 10) {
      if (i > start) out.push(b.subarray(start, i));
      out.push(CRLF);
      start = i + 1;
    } else if (b[i] === 9 && i > start) {
      // the text before the tab; the tab starts the next run
      out.push(b.subarray(start, i));
      start = i;
    }
  }
  if (start < b.length) out.push(b.subarray(start));
  return out;
}
const CRLF = Uint8Array.of(13, 10);

export class Uart8250 implements CharDevice {
  /** what went out on the line */
  sink: (s: string) => void = () => undefined;
  /** bytes in state->xmit not yet sent */
  private xmit: Uint8Array[] = [];
  private queued = 0;
  /** uart_write calls a write's bytes are still to go through (one per uart_write of its tree) */
  private chunks: Uint8Array[] = [];
  /** an interrupt is raised and not yet taken */
  private irqRaised = false;
  /** interrupts taken, bytes sent (the serial line's counters: /proc/tty/driver/serial tx) */
  readonly stats = { irqs: 0, tx: 0 };
  private readonly rand: Prng;
  constructor(private readonly m: CpuMachine, seed: number) {
    this.rand = new Prng((seed ^ 0x3f8) >>> 0);
  }

  /**
   * write(2) to the tty: n_tty's output processing splits the bytes into uart_write calls; a recorded
   * write's tree sends them one per uart_write (the `uart_write` hook), a path without one at once.
   */
  write(e: Env, b: Uint8Array): number {
    const chunks = onlcrChunks(Uint8Array.from(b));
    if (e.recorded === true) this.chunks.push(...chunks);
    else for (const ch of chunks) this.queue(ch);
    return b.length;
  }

  /** one uart_write: the next chunk into the circular buffer (false: none left) */
  uartWrite(): boolean {
    const ch = this.chunks.shift();
    if (!ch) return false;
    this.queue(ch);
    return true;
  }

  /** the chunks a write's tree had no uart_write for (its n_tty_write returns) */
  flushChunks(): void {
    for (const ch of this.chunks.splice(0)) this.queue(ch);
  }

  /** bytes into state->xmit (room permitting: uart_write copies what fits) and the THRE interrupt raised */
  private queue(ch: Uint8Array): void {
    const room = UART_XMIT_SIZE - 1 - this.queued;
    const b = ch.length > room ? ch.subarray(0, room) : ch;
    if (!b.length) return;
    this.xmit.push(b);
    this.queued += b.length;
    this.raise();
  }

  /** serial8250_start_tx: THRI enabled, the interrupt pending on the CPU IRQ 4 is routed to */
  private raise(): void {
    if (this.irqRaised) return;
    this.irqRaised = true;
    const m = this.m;
    const c = irqCpu(m, SERIAL_IRQ);
    // the writer is on that CPU: taken at uart_write's spin_unlock_irqrestore, nested in the write
    if (m.executing === c) this.interrupt(c);
    else m.schedule(m.now, () => this.interrupt(c));
  }

  /** the THRE interrupt and the empty one after it (serial8250_interrupt's trees) */
  private interrupt(c: Cpu): void {
    this.irqRaised = false;
    const n = this.queued;
    const bytes = Buffer.concat(this.xmit.splice(0));
    this.queued = 0;
    this.stats.tx += n;
    this.m.irq(c, 'serial_irq', newEnv('serial_irq', { irq: SERIAL_IRQ, bytes: n }));
    this.m.irq(c, 'serial_irq', newEnv('serial_irq', { irq: SERIAL_IRQ, bytes: 0 }));
    this.stats.irqs += 2;
    if (n) this.sink(bytes.toString('latin1'));
  }

  /** the recorded tree of an interrupt draining `n` bytes (the nearest recorded count), or null */
  treeFor(n: number): ModelVariant | null {
    const t = irqTrees();
    if (!t) return null;
    // a drain takes the drain of the nearest recorded size, the empty interrupt the empty one
    const sizes = t.sizes.filter((s) => (s > 0) === (n > 0));
    if (!sizes.length) return null;
    let best = sizes[0];
    for (const s of sizes) if (Math.abs(s - n) < Math.abs(best - n)) best = s;
    const l = t.byBytes.get(best)!;
    let x = this.rand.next() * l.reduce((a, v) => a + v.count, 0);
    for (const v of l) if ((x -= v.count) < 0) return v;
    return l[l.length - 1];
  }
}

export const serial8250 = new Semantics<SerialMachine>('drivers/serial8250');

serial8250.setup(() => definePaths({
  // the serial interrupt: its recorded tree (irq_enter_rcu __common_interrupt(... serial8250_interrupt ...) irq_exit_rcu)
  serial_irq: `
%serial_irq_body
`,
}));
serial8250.hook('serial_irq_body', (m, c, _t, e) => {
  const v = m.serial.treeFor(e.bytes as number);
  if (!v) return H_CONT;
  e.recorded = true;
  pushPath(c.ks, variantCode(irqTrees()!.key, v), e);
  return H_PUSHED;
});
serial8250.hook('uart_tx', (m) => { m.serial.uartWrite(); return H_CONT; });
serial8250.hook('uart_tx_rest', (m) => { m.serial.flushChunks(); return H_CONT; });
// uart_write's bytes are in the buffer once it returns (its unlock is where the interrupt is taken);
// what the tree had no uart_write for goes when n_tty_write returns
serial8250.at('uart_write', 'uart_tx', 'exit');
serial8250.at('n_tty_write', 'uart_tx_rest', 'exit');
