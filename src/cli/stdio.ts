/**
 * The command's standard output and error, written straight to fds 1 and 2.  Node's
 * process.stdout/process.stderr objects cost 5-10 ms to create when the fd is a pipe (they load
 * the net and stream modules), more than the rest of a short run's output handling; a run that
 * only prints needs none of that.  Writes are synchronous, as Node's own writes to files and
 * pipes are on Linux, so output keeps its order with everything the process writes.
 *
 * An fd that is non-blocking and full (EAGAIN: a parent shared a non-blocking pipe) is handed to
 * its Node stream from that write on; the stream queues and drains the rest, and the exit waits
 * for it.  A reader that went away (EPIPE, `stap ... | head`) ends the run with status 141, as
 * SIGPIPE ends any Unix tool.
 */
import * as fs from 'fs';

export type WriteSync = (fd: number, buf: Uint8Array, off: number, len: number) => number;

export interface Sink {
  write(chunk: Uint8Array | string, cb?: () => void): boolean;
  on(ev: 'error', fn: (e: NodeJS.ErrnoException) => void): unknown;
}

/** Status of a run whose output reader went away (128 + SIGPIPE). */
export const EPIPE_STATUS = 141;

export class FdWriter {
  private stream: Sink | undefined;

  constructor(
    private readonly fd: number,
    private readonly openStream: () => Sink,
    private readonly onEpipe: () => void,
    private readonly writeSync: WriteSync = fs.writeSync,
  ) {}

  /** True once output goes through the fd's Node stream (after an EAGAIN). */
  get streaming(): boolean {
    return this.stream !== undefined;
  }

  write(buf: Uint8Array): void {
    if (this.stream) {
      this.stream.write(buf);
      return;
    }
    let off = 0;
    while (off < buf.length) {
      try {
        off += this.writeSync(this.fd, buf, off, buf.length - off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          this.takeStream().write(buf.subarray(off));
          return;
        }
        if (code === 'EPIPE') {
          this.onEpipe();
          return;
        }
        throw e;
      }
    }
  }

  /** Calls `done` once everything written has left the process. */
  flush(done: () => void): void {
    if (this.stream) this.stream.write('', done);
    else done();
  }

  private takeStream(): Sink {
    const s = this.openStream();
    s.on('error', (e) => {
      if (e.code === 'EPIPE') this.onEpipe();
      else throw e;
    });
    this.stream = s;
    return s;
  }
}

const epipeExit = (): void => {
  process.exit(EPIPE_STATUS);
};

export const stdout = new FdWriter(1, () => process.stdout, epipeExit);
export const stderr = new FdWriter(2, () => process.stderr, epipeExit);

/** Exits with `code` once both outputs have drained. */
export function flushThenExit(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  stdout.flush(done);
  stderr.flush(done);
}

/** Whether fd 1 is a terminal (without creating process.stdout). */
export function stdoutIsTty(): boolean {
  return (require('tty') as typeof import('tty')).isatty(1);
}
