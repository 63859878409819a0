/**
 * The kernel log (printk's ring buffer): what printk(), dump_stack() and panic() of a guru-mode
 * script write, as `[seconds.micros] text` records with their level (0 KERN_EMERG .. 7 KERN_DEBUG),
 * and the trace_printk() records the ftrace() tapset function adds to the tracing buffer. The
 * machine does not show them yet (no dmesg, /dev/kmsg or tracefs `trace` file reads them).
 */
export interface LogRecord { level: number; ns: number; text: string }

const MAX = 4096;
const kmsg: LogRecord[] = [];
const tracePrintk: LogRecord[] = [];

function push(buf: LogRecord[], r: LogRecord): void {
  buf.push(r);
  if (buf.length > MAX) buf.splice(0, buf.length - MAX);
}

/** printk at a level: one record per line of text. */
export function printk(level: number, ns: number, text: string): void {
  for (const line of text.replace(/\n$/, '').split('\n')) push(kmsg, { level, ns, text: line });
}

/** trace_printk(): a record of the tracing ring buffer's "print" events. */
export function tracePrint(ns: number, text: string): void {
  push(tracePrintk, { level: 4, ns, text: text.replace(/\n$/, '') });
}

/** The log as dmesg prints it: `[    1.234567] text`. */
export function kmsgText(): string {
  return kmsg.map((r) => `[${(r.ns / 1e9).toFixed(6).padStart(12)}] ${r.text}\n`).join('');
}

export function kmsgRecords(): readonly LogRecord[] {
  return kmsg;
}

export function tracePrintRecords(): readonly LogRecord[] {
  return tracePrintk;
}

export function resetPrintk(): void {
  kmsg.length = 0;
  tracePrintk.length = 0;
}
