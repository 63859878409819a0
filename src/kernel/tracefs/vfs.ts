/**
 * The interface a mounted kernel pseudo filesystem (tracefs, debugfs) gives the machine's VFS:
 * directories list and look up their children (and, for `instances/`, make and remove them);
 * files are opened with the open(2) flags and the opener's CPU context, and the open file reads,
 * writes and is released (close of the last reference) like a struct file with its
 * file_operations. A read that would block (trace_pipe) returns null; the VFS then sleeps the
 * reader and calls `waitReadable` to be woken.
 *
 * Helpers build the common kinds of files: seq files (text made at open, read from a position),
 * control files (a value read back and a write handler per write(2)), and files whose text is
 * produced lazily in chunks (the `trace` file).
 */
import { CpuContext } from '../current';
import { EINVAL, ENOENT, EPERM } from '../errno';

export const O_ACCMODE = 3, O_WRONLY = 1, O_RDWR = 2, O_TRUNC = 0o1000, O_APPEND = 0o2000, O_NONBLOCK = 0o4000;

/** Who opens a file: the CPU context of the opener (its task and CPU). */
export interface Opener {
  ctx: CpuContext;
}

/** An open pseudo file (struct file + its file_operations). */
export interface PseudoOpen {
  /** Read up to `count` bytes at `pos`: bytes (empty at EOF), or null when the read would block. */
  read(count: number, pos: number): Uint8Array | null;
  /** One write(2): bytes accepted or -errno. */
  write(data: Uint8Array, ctx: CpuContext): number;
  /** Close of the last reference: 0 or -errno (filter files apply their changes here). */
  release(): number;
  /** Blocking readers: call `wake` once data may be available; returns a cancel function. */
  waitReadable?(wake: () => void): () => void;
}

export interface PseudoNode {
  readonly kind: 'dir' | 'file';
  /** permission bits (0o644 ...) */
  mode: number;
  /** directories: child names in readdir order */
  list?(): string[];
  child?(name: string): PseudoNode | null;
  mkdir?(name: string): number;
  rmdir?(name: string): number;
  /** files: open with open(2) flags; an open file or -errno */
  open?(flags: number, who: Opener): PseudoOpen | number;
  /** st_size as stat(2) reports it (0 for most tracefs files) */
  size?: number;
}

/** an instance directory's mode (and the top one's: tracefs' root) */
export const TOP_DIR_MODE = 0o750;

/**
 * A directory node whose listing and look-ups are those of `dir()`, made when it is first listed
 * or looked up: a root mounted at boot that a start never reads (tracefs, debugfs) costs one node.
 */
export function lazyDir(mode: number, dir: () => PseudoNode): PseudoNode {
  return { kind: 'dir', mode, list: () => dir().list?.() ?? [], child: (name) => dir().child?.(name) ?? null };
}

/** A directory with a fixed set of children (made on first use when given as functions). */
export class Dir implements PseudoNode {
  readonly kind = 'dir';
  private readonly entries = new Map<string, PseudoNode | (() => PseudoNode | null)>();
  constructor(public mode = 0o755) {}
  add(name: string, node: PseudoNode | (() => PseudoNode | null)): this {
    this.entries.set(name, node);
    return this;
  }
  remove(name: string): void {
    this.entries.delete(name);
  }
  has(name: string): boolean {
    return this.entries.has(name);
  }
  list(): string[] {
    return [...this.entries.keys()];
  }
  child(name: string): PseudoNode | null {
    const e = this.entries.get(name);
    if (e === undefined) return null;
    if (typeof e === 'function') {
      const n = e();
      if (n) this.entries.set(name, n);
      return n;
    }
    return e;
  }
}

/** A directory whose children are computed (events/, per_cpu/ ...). */
export class DynDir implements PseudoNode {
  readonly kind = 'dir';
  constructor(private readonly names: () => string[], private readonly make: (name: string) => PseudoNode | null, public mode = 0o755) {}
  list(): string[] {
    return this.names();
  }
  child(name: string): PseudoNode | null {
    return this.make(name);
  }
}

const enc = (s: string): Uint8Array => Buffer.from(s, 'latin1');

/** Bytes [pos, pos+count) of a text. */
function slice(text: Uint8Array, count: number, pos: number): Uint8Array {
  return text.subarray(Math.min(pos, text.length), Math.min(pos + count, text.length));
}

export interface FileOps {
  /** the text a read shows (made at open for a reader, as seq_open + show) */
  show?: () => string;
  /** one write(2) of the (latin1) text; bytes accepted or -errno */
  write?: (text: string, ctx: CpuContext, open: { flags: number; data: unknown }) => number;
  /** the open(2) itself: -errno to refuse, or an action (O_TRUNC of `trace` clears it) */
  open?: (flags: number, who: Opener) => number;
  /** close of a file opened for writing (the parser's pending text is applied) */
  release?: (open: { flags: number; data: unknown }) => number;
}

/**
 * A file with show/write handlers: reads show the text made when the file was opened; every
 * write(2) goes to `write`; no handler = EINVAL (write) / EPERM (open for writing).
 */
export class File implements PseudoNode {
  readonly kind = 'file';
  constructor(public mode: number, private readonly ops: FileOps) {}
  open(flags: number, who: Opener): PseudoOpen | number {
    const wr = (flags & O_ACCMODE) !== 0;
    if (wr && !this.ops.write) return -EPERM;
    if (!wr && !this.ops.show && (flags & O_ACCMODE) === 0 && !this.ops.write) return -EINVAL;
    if (this.ops.open) {
      const r = this.ops.open(flags, who);
      if (r < 0) return r;
    }
    const ops = this.ops;
    const st: { flags: number; data: unknown } = { flags, data: null };
    let text: Uint8Array | null = null;
    return {
      read: (count, pos) => {
        if (!ops.show) return new Uint8Array(0);
        if (text === null || pos === 0) text = enc(ops.show());
        return slice(text, count, pos);
      },
      write: (data, ctx) => (ops.write ? ops.write(Buffer.from(data).toString('latin1'), ctx, st) : -EINVAL),
      release: () => (wr && ops.release ? ops.release(st) : 0),
    };
  }
}

/** A read-only text file. */
export function textFile(show: () => string, mode = 0o444): File {
  return new File(mode, { show });
}

/**
 * A file whose text comes in pieces from a generator started at open (seq_file over an
 * iterator): large outputs (`trace`) are made as the reader reads.
 */
export class StreamFile implements PseudoNode {
  readonly kind = 'file';
  constructor(public mode: number, private readonly start: (who: Opener, flags: number) => Iterator<string> | number,
    private readonly writeOps?: FileOps) {}
  open(flags: number, who: Opener): PseudoOpen | number {
    const wr = (flags & O_ACCMODE) !== 0;
    if (wr && !this.writeOps?.write) return -EPERM;
    if (this.writeOps?.open) {
      const r = this.writeOps.open(flags, who);
      if (r < 0) return r;
    }
    const st: { flags: number; data: unknown } = { flags, data: null };
    let it: Iterator<string> | null = null;
    let buf = Buffer.alloc(0);
    let base = 0; // file position of buf[0]
    let done = false;
    const begin = (): number => {
      const r = this.start(who, flags);
      if (typeof r === 'number') return r;
      it = r; buf = Buffer.alloc(0); base = 0; done = false;
      return 0;
    };
    return {
      read: (count, pos) => {
        if (it === null || pos < base) { const r = begin(); if (r < 0) return new Uint8Array(0); }
        // drop what was read, fill until the request is covered
        if (pos > base) { buf = buf.subarray(Math.min(pos - base, buf.length)); base = pos; }
        const parts: Buffer[] = [buf];
        let have = buf.length;
        while (!done && have < count) {
          const n = it!.next();
          if (n.done) { done = true; break; }
          const b = Buffer.from(n.value, 'latin1');
          parts.push(b);
          have += b.length;
        }
        if (parts.length > 1) buf = Buffer.concat(parts, have);
        return buf.subarray(0, Math.min(count, buf.length));
      },
      write: (data, ctx) => (this.writeOps?.write ? this.writeOps.write(Buffer.from(data).toString('latin1'), ctx, st) : -EINVAL),
      release: () => (wr && this.writeOps?.release ? this.writeOps.release(st) : 0),
    };
  }
}

/** Parse a tracefs integer write (kstrtoul_from_user: decimal/0x/0 prefixes, one trailing newline). */
export function parseUlong(text: string): number | null {
  const t = text.replace(/\n$/, '');
  if (!/^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.test(t)) return null;
  const v = t.startsWith('0x') || t.startsWith('0X') ? parseInt(t.slice(2), 16) : t.length > 1 && t[0] === '0' ? parseInt(t, 8) : parseInt(t, 10);
  return Number.isFinite(v) ? v : null;
}

/** Walk a pseudo tree by path components (for tests and the debugfs `tracing` link). */
export function walk(root: PseudoNode, parts: readonly string[]): PseudoNode | null {
  let cur: PseudoNode | null = root;
  for (const p of parts) {
    if (!cur || cur.kind !== 'dir' || !cur.child) return null;
    cur = cur.child(p);
  }
  return cur;
}

/** Read a whole pseudo file (tests, trace-cmd's own reads go through the VFS instead). */
export function readAll(node: PseudoNode, who: Opener): string | number {
  if (node.kind !== 'file' || !node.open) return -ENOENT;
  const f = node.open(0, who);
  if (typeof f === 'number') return f;
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const b = f.read(65536, pos);
    if (b === null || b.length === 0) break;
    parts.push(Buffer.from(b));
    pos += b.length;
  }
  f.release();
  return Buffer.concat(parts).toString('latin1');
}

/** One `echo TEXT > file` (or `>>` with append): open, write, release; 0 or -errno. */
export function writeFile(node: PseudoNode, text: string, who: Opener, append = false): number {
  if (node.kind !== 'file' || !node.open) return -ENOENT;
  const f = node.open(O_WRONLY | (append ? O_APPEND : O_TRUNC), who);
  if (typeof f === 'number') return f;
  const w = f.write(Buffer.from(text, 'latin1'), who.ctx);
  const r = f.release();
  return w < 0 ? w : r;
}
