/**
 * Output transport of the run pass: script output is buffered per handler and flushed as
 * latin1 bytes when the handler ends (so handlers never interleave), to stdout or to the
 * `-o FILE`.  Writes are synchronous so nothing is lost on exit, error, SIGINT or SIGTERM.
 */
import * as fs from 'fs';
import { strftimeLocal } from './strftime';
import { hostErrorText } from './host_errors';

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

/** `-S size[,N]`: switch to the next output file past `sizeMax` bytes, keep at most `maxFiles`. */
export interface OutputRotation {
  sizeMax: number;
  maxFiles: number;
}

/**
 * Script output, to stdout or to the `-o FILE` as stapio writes it (stream mode): FILE, or with
 * `-S` FILE.0; each switch (switch_file(), i.e. stapio's SIGUSR2, or the -S size reached) closes
 * the file and opens FILE.<n+1>, removing FILE.<n+1-N> when `-S size,N` limits the count.
 * FILE may hold strftime(3) conversions, expanded in local time at each open (stapio's
 * make_outfile_name), with the session's clock (`nowSec`).
 */
export class Transport {
  private buf = '';
  private fileFd: number | undefined;
  private fileWrite: Writer | undefined;
  private readonly sink: Writer;
  private fnum = 0;
  private written = 0;
  private switchPending = false;
  private names: string[] = [];

  constructor(stdout: Writer, private readonly outputFile?: string, private readonly rotation?: OutputRotation,
    private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000)) {
    if (outputFile !== undefined) {
      this.sink = (s: string) => {
        if (this.names.length === 0) {
          const err = this.open();
          if (err) throw new Error(err);
        }
        if (this.fileFd === undefined) return;
        if (this.rotation && this.rotation.sizeMax > 0 && this.written > 0 && this.written + s.length > this.rotation.sizeMax) this.nextFile();
        this.fileWrite!(s);
        this.written += s.length;
      };
    } else this.sink = stdout;
  }

  /**
   * Open the first output file (stapio does it before the module starts). Returns stapio's
   * error message when the file cannot be created, undefined otherwise (and without -o).
   */
  open(): string | undefined {
    if (this.outputFile === undefined || this.names.length > 0) return undefined;
    return this.openNumbered(this.rotation && this.rotation.sizeMax > 0 ? 0 : -1);
  }

  /** The files opened so far, in order (the expanded names). */
  openedFiles(): readonly string[] {
    return this.names;
  }

  private openNumbered(fnum: number): string | undefined {
    const template = this.outputFile as string;
    const base = template === '/dev/null' ? template : strftimeLocal(template, this.nowSec());
    if (base === '') return 'ERROR: Invalid FILE name format';
    const name = fnum < 0 || template === '/dev/null' ? base : `${base}.${fnum}`;
    try {
      this.fileFd = fs.openSync(name, 'w');
      this.fileWrite = fdWriter(this.fileFd);
    } catch (e) {
      return `ERROR: Couldn't open output file ${name}: ${hostErrorText(e)}`;
    }
    this.names.push(name);
    return undefined;
  }

  /** Append script output (print family, log()). */
  out(s: string): void {
    this.buf += s;
  }

  /** Write out everything buffered so far (then switch files when one was requested). */
  flush(): void {
    if (this.buf.length) {
      const b = this.buf;
      this.buf = '';
      this.sink(b);
    }
    if (this.switchPending) {
      this.switchPending = false;
      this.nextFile();
    }
  }

  /**
   * switch_file(): stapio rotates once the signal reaches it, after the output the handler
   * produced so far. Without -o there is no file to switch.
   */
  requestSwitch(): void {
    if (this.outputFile !== undefined) this.switchPending = true;
  }

  private nextFile(): void {
    if (this.fileFd === undefined || this.outputFile === undefined) return;
    fs.closeSync(this.fileFd);
    this.fileFd = undefined;
    this.fnum++;
    const keep = this.rotation?.maxFiles ?? 0;
    if (keep > 0 && this.names.length >= keep) {
      const old = this.names[this.names.length - keep];
      try { fs.unlinkSync(old); } catch { /* already gone */ }
    }
    const err = this.openNumbered(this.fnum);
    if (err) throw new Error(err);
    this.written = 0;
  }

  close(): void {
    this.switchPending = false;
    this.flush();
    if (this.fileFd !== undefined) {
      fs.closeSync(this.fileFd);
      this.fileFd = undefined;
    }
  }
}
