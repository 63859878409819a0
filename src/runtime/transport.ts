/**
 * Output transport of the run pass: script output is buffered per handler and flushed as
 * latin1 bytes when the handler ends (so handlers never interleave), to stdout or to the
 * `-o FILE`.  Writes are synchronous so nothing is lost on exit, error, SIGINT or SIGTERM.
 */
import * as fs from 'fs';

/** A byte sink for latin1 strings (one char = one byte). */
export type Writer = (s: string) => void;

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Synchronous writer on a file descriptor (retries on EAGAIN for non-blocking pipes). */
export function fdWriter(fd: number): Writer {
  return (s: string) => {
    if (s.length === 0) return;
    const buf = Buffer.from(s, 'latin1');
    let off = 0;
    while (off < buf.length) {
      try {
        off += fs.writeSync(fd, buf, off, buf.length - off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          sleepMs(1);
          continue;
        }
        if (code === 'EPIPE') return;
        throw e;
      }
    }
  };
}

export class Transport {
  private buf = '';
  private fileFd: number | undefined;
  private readonly sink: Writer;

  constructor(stdout: Writer, outputFile?: string) {
    if (outputFile !== undefined) {
      this.fileFd = fs.openSync(outputFile, 'w');
      this.sink = fdWriter(this.fileFd);
    } else this.sink = stdout;
  }

  /** Append script output (print family, log()). */
  out(s: string): void {
    this.buf += s;
  }

  /** Write out everything buffered so far. */
  flush(): void {
    if (this.buf.length) {
      const b = this.buf;
      this.buf = '';
      this.sink(b);
    }
  }

  close(): void {
    this.flush();
    if (this.fileFd !== undefined) {
      fs.closeSync(this.fileFd);
      this.fileFd = undefined;
    }
  }
}
