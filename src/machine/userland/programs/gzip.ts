/**
 * gzip 1.12 (Debian 12): gzip (gunzip and zcat are Debian's shell scripts running `gzip -d`, `gzip -cd`), with the system calls strace shows for the real binary
 * (data/recordings/gzip.json.gz): the fatal signals' dispositions read and handlers installed for
 * those not ignored (SIGHUP SIGTERM SIGXCPU SIGXFSZ, and SIGINT SIGPIPE when not ignored); the
 * input opened relative to its directory (O_DIRECTORY, then O_NOFOLLOW|O_NONBLOCK|O_NOCTTY) and
 * fstat'd; the output created O_EXCL 0600 beside it with the caught signals blocked; the input read
 * through the 64 KiB window (65536 bytes, then what the window has room for, sliding by 32 KiB),
 * the output written in 256 KiB buffers; the input's times, group, mode and owner copied to the
 * output by descriptor (utimensat, fchown, fchmod, fchown); the input unlinked relative to its
 * directory with the signals blocked.  No close_stdout: gzip exits straight away.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';

type G<T> = Generator<Op, T, SysResult>;

// eslint-disable-next-line @typescript-eslint/no-var-requires
const zlib = (): typeof import('zlib') => require('zlib') as typeof import('zlib');
/** real gzip format (deflate level 6, no name, mtime 0): deterministic bytes */
export function gzipBytes(b: Uint8Array): Uint8Array {
  return new Uint8Array(zlib().gzipSync(b, { level: 6 }));
}
export function gunzipBytes(b: Uint8Array): Uint8Array | null {
  try { return new Uint8Array(zlib().gunzipSync(b)); } catch { return null; }
}

const SIGINT = 2, SIGHUP = 1, SIGPIPE = 13, SIGTERM = 15, SIGXCPU = 24, SIGXFSZ = 25;
const AT_FDCWD = -100, AT_EMPTY_PATH = 0x1000;
const O_WRONLY = 0x1, O_CREAT = 0x40, O_EXCL = 0x80, O_NOCTTY = 0x100, O_NONBLOCK = 0x800, O_DIRECTORY = 0x10000, O_NOFOLLOW = 0x20000;
const SIG_BLOCK = 0, SIG_SETMASK = 2;
// OUTBUFSIZ: Debian 12's gzip writes its output in 262144-byte buffers (strace of `tar cf - /etc | gzip` on this host)
const WSIZE = 32768, OUTBUFSIZ = 262144, MIN_LOOKAHEAD = 262;

/** install_signal_handlers: each disposition read; the default ones caught (SIGINT/SIGPIPE only when not ignored) */
function* installHandlers(u: U): G<number[]> {
  const caught: number[] = [];
  for (const sig of [SIGINT, SIGHUP, SIGPIPE, SIGTERM, SIGXCPU, SIGXFSZ]) {
    const r = yield* u.sys('rt_sigaction', [sig, 0, 0, 8]);
    const old = (r.info as { old?: unknown } | undefined)?.old;
    if (old !== 'ignore') caught.push(sig);
  }
  for (const sig of caught) yield* u.sigaction(sig, 'default');
  return caught;
}
const maskOf = (sigs: number[]): number => sigs.reduce((a, s) => a | (1 << (s - 1)), 0);

/** with the caught signals blocked (the output's creation and the input's removal) */
function* blocked<T>(u: U, sigs: number[], g: G<T>): G<T> {
  const old = (yield* u.sys('rt_sigprocmask', [SIG_BLOCK, 1, 0, 8], { set: maskOf(sigs) })).info as { old?: number } | undefined;
  const r = yield* g;
  yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: old?.old ?? 0 });
  return r;
}

/**
 * The input through the deflate window, the output written as it fills 16 KiB buffers (in
 * proportion to the input consumed), the rest at the end: the whole input.
 */
function* stream(u: U, inFd: number, outFd: number, transform: (b: Uint8Array) => Uint8Array | null, size: number): G<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  let window = 0, got = 0;
  for (;;) {
    const r = yield* u.read(inFd, 2 * WSIZE - window);
    if (r.ret <= 0 || !r.data) break;
    parts.push(r.data);
    got += r.ret;
    window += r.ret;
    if (window >= 2 * WSIZE - MIN_LOOKAHEAD) window -= WSIZE;
  }
  const input = Buffer.concat(parts, got);
  const out = transform(input);
  if (!out) return null;
  yield* u.cpu(out.length * 4 + input.length * 16);
  void size;
  for (let o = 0; o < out.length; o += OUTBUFSIZ) yield* u.writeAll(outFd, out.subarray(o, Math.min(out.length, o + OUTBUFSIZ)));
  return out;
}

function* gzipMain(u: U, argv: string[], decompress0: boolean, toStdout0: boolean): G<number> {
  const prog = argv[0].split('/').pop() ?? 'gzip';
  let decompress = decompress0 || prog === 'gunzip' || prog === 'zcat';
  let toStdout = toStdout0 || prog === 'zcat', keep = false, force = false, list = false;
  const files: string[] = [];
  for (const a of argv.slice(1)) {
    if (a.startsWith('-') && a.length > 1) {
      for (const ch of a.slice(1)) {
        if (ch === 'd') decompress = true; else if (ch === 'c') toStdout = true; else if (ch === 'k') keep = true;
        else if (ch === 'f') force = true; else if (ch === 'l') list = true;
      }
    } else files.push(a);
  }
  const caught = yield* installHandlers(u);
  const transform = (b: Uint8Array): Uint8Array | null => (decompress ? gunzipBytes(b) : gzipBytes(b));
  if (!files.length) {
    // treat_stdin: compressed data is not written to (read from) a terminal (isatty: TCGETS) unless forced; the
    // input fstat'ed, streamed, both descriptors closed (strace of Debian 12's gzip under tar czf)
    if (!force && !list && (yield* u.isatty(decompress ? 0 : 1))) {
      yield* u.err(decompress ? `${prog}: compressed data not read from a terminal. Use -f to force decompression.\nFor help, type: ${prog} -h\n`
        : `${prog}: compressed data not written to a terminal. Use -f to force compression.\nFor help, type: ${prog} -h\n`);
      return 1;
    }
    yield* u.sys('newfstatat', [0, '', 0, AT_EMPTY_PATH]);
    const out = yield* stream(u, 0, 1, transform, 0);
    if (!out) { yield* u.err(`${prog}: stdin: not in gzip format\n`); return 1; }
    yield* u.close(0);
    yield* u.close(1);
    return 0;
  }
  let st = 0;
  let listed = false;
  for (const f of files) {
    const slash = f.lastIndexOf('/');
    const dir = slash >= 0 ? f.slice(0, slash + 1) : '';
    const base = f.slice(slash + 1);
    // open_input_file: the directory (atdir_set), then the file relative to it
    const dfd = dir ? (yield* u.sys('openat', [AT_FDCWD, dir, O_DIRECTORY])).ret : AT_FDCWD;
    const inFd = (yield* u.sys('openat', [dfd, base, O_NOCTTY | O_NONBLOCK | O_NOFOLLOW])).ret;
    if (inFd < 0) { yield* u.err(`${prog}: ${f}: ${inFd === -40 ? 'Too many levels of symbolic links' : 'No such file or directory'}\n`); st = 1; continue; }
    const sr = yield* u.sys('newfstatat', [inFd, '', 0, AT_EMPTY_PATH]);
    const s = sr.info as unknown as StatInfo;
    yield* u.malloc();
    if (s.isDir) { yield* u.err(`${prog}: ${f} is a directory -- ignored\n`); yield* u.close(inFd); st = 2; continue; }
    if (decompress && !f.endsWith('.gz') && !toStdout && !list) { yield* u.err(`${prog}: ${f}: unknown suffix -- ignored\n`); yield* u.close(inFd); st = 2; continue; }
    if (!decompress && !list && f.endsWith('.gz') && !force && !toStdout) { yield* u.err(`${prog}: ${f} already has .gz suffix -- unchanged\n`); yield* u.close(inFd); st = 2; continue; }
    if (list) {
      const b = yield* u.readAll(inFd, WSIZE);
      yield* u.close(inFd);
      const r = gunzipBytes(b);
      if (!r) { yield* u.err(`${prog}: ${f}: not in gzip format\n`); st = 1; continue; }
      if (!listed) { yield* u.printf('         compressed        uncompressed  ratio uncompressed_name\n'); listed = true; }
      const ratio = r.length ? ((1 - b.length / r.length) * 100).toFixed(1) : '0.0';
      yield* u.printf(`${String(b.length).padStart(19)} ${String(r.length).padStart(19)} ${ratio.padStart(5)}% ${f.replace(/\.gz$/, '')}\n`);
      continue;
    }
    if (toStdout) {
      const out = yield* stream(u, inFd, 1, transform, s.size);
      yield* u.close(inFd);
      if (!out) { yield* u.err(`${prog}: ${f}: not in gzip format\n`); st = 1; }
      continue;
    }
    const outName = decompress ? base.slice(0, -3) : `${base}.gz`;
    const outFd = yield* blocked(u, caught, u.sys('openat', [dfd, outName, O_WRONLY | O_CREAT | O_EXCL, 0o600]));
    if (outFd.ret < 0) {
      yield* u.err(outFd.ret === -17 ? `${prog}: ${dir}${outName} already exists; not overwritten\n` : `${prog}: ${dir}${outName}: Permission denied\n`);
      yield* u.close(inFd);
      st = 2;
      continue;
    }
    const out = yield* stream(u, inFd, outFd.ret, transform, s.size);
    yield* u.close(inFd);
    if (!out) { yield* u.err(`${prog}: ${f}: not in gzip format\n`); yield* u.close(outFd.ret); st = 1; continue; }
    // copy_stat: the input's times, its group, its mode, its owner
    yield* u.sys('utimensat', [outFd.ret, 0, [s.atime ?? s.mtime, s.mtime], 0]);
    yield* u.sys('fchown', [outFd.ret, -1, s.gid]);
    yield* u.sys('fchmod', [outFd.ret, s.mode & 0o7777]);
    yield* u.sys('fchown', [outFd.ret, s.uid, -1]);
    yield* u.close(outFd.ret);
    if (!keep) yield* blocked(u, caught, u.sys('unlinkat', [dfd, base, 0]));
  }
  return st;
}

export const gzipPrograms: Record<string, ProgramMain> = {
  gzip: (u, argv) => gzipMain(u, argv, false, false),
};
