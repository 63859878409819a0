/**
 * tapsim's on-disk cache (parsed tapsets and user scripts, the V8 code cache of the bundled
 * command, derived kernel tables): `$TAPSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/tapsim`, else
 * `~/.cache/tapsim`.  Everything in it is an optimisation, checked against what it was made
 * from, and written atomically.
 *
 * Nobody else may be able to plant an entry: the directory is created 0700; an existing one that
 * is not owned by this user, or that group or others may write (or whose parent anyone may
 * write without the sticky bit), is refused with a one-line warning, and the run goes on
 * without a cache.  Entries are sealed (seal/unseal: a header with the CRC-32 and length of the
 * content), so a damaged entry is discarded instead of trusted.  What an entry holds is never
 * code: a cached syntax tree becomes JavaScript only through pass 3's escaping
 * (src/translate/emit.ts), and the V8 code cache is only ever used with the bundle's own source.
 */
import * as fs from 'fs';
import * as path from 'path';
import { quietBinding } from './binding';

/** The configured cache directory (not yet checked). */
export function configuredCacheDir(): string {
  const env = process.env.TAPSIM_CACHE_DIR;
  if (env) return path.resolve(env);
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'tapsim');
  // (os.homedir() answers $HOME when set: the os module is loaded only without it)
  return path.join(process.env.HOME || (require('os') as typeof import('os')).homedir(), '.cache', 'tapsim');
}

const uid = (): number => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** Why `dir` (whose stat is `st`) may not serve as the cache (null: it may). */
export function unsafeCacheDir(dir: string, st: fs.Stats): string | null {
  const me = uid();
  if (!st.isDirectory()) return 'is not a directory';
  if (me >= 0 && st.uid !== me) return `is owned by uid ${st.uid}, not by you (uid ${me})`;
  if (st.mode & 0o022) return 'may be written by other users';
  try {
    const parent = fs.statSync(path.dirname(dir));
    if (parent.mode & 0o002 && !(parent.mode & 0o1000)) return 'is in a directory other users may write';
  } catch {
    // the root
  }
  return null;
}

/** The directory configured (`of`), the one to use (null: none) and why not (a warning line). */
type Verdict = { of: string; dir: string | null; why: string | null };

/**
 * The verdict on the directory, shared by every copy of this module in the process (the
 * launcher's and the bundled command's): checked once.
 */
const VERDICT = Symbol.for('tapsim.cacheDir');
const shared = globalThis as unknown as { [VERDICT]?: Verdict & { warned?: boolean } };

function check(dir: string): Verdict {
  let why: string | null;
  try {
    why = unsafeCacheDir(dir, fs.statSync(dir));
  } catch {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      why = unsafeCacheDir(dir, fs.statSync(dir));
    } catch {
      return { of: dir, dir: null, why: null }; // (no cache where none can be made: nothing to warn about)
    }
  }
  return why ? { of: dir, dir: null, why: `WARNING: cache directory '${dir}' ${why}: running without a cache\n` } : { of: dir, dir, why: null };
}

/**
 * The cache directory, created (0700) and checked once per process; null when there is none
 * (it cannot be created, or it is refused: then `warn` receives the one-line reason, once).
 */
export function cacheDir(warn?: (line: string) => void): string | null {
  const dir = configuredCacheDir();
  let v = shared[VERDICT];
  if (!v || v.of !== dir) v = shared[VERDICT] = check(dir);
  if (v.why && warn && !v.warned) {
    v.warned = true;
    warn(v.why);
  }
  return v.dir;
}

/** A file in the cache directory, or null without one. */
export function cacheFile(name: string): string | null {
  const dir = cacheDir();
  return dir === null ? null : path.join(dir, name);
}

/**
 * Best-effort atomic write (a new temporary file, opened exclusively with mode 0600, then
 * renamed over the entry); failures are ignored.
 */
export function writeAtomic(file: string, data: string | Uint8Array): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch {
    // caches are best effort
  }
}

/** One kind of entry in a cache directory, for pruneKind. */
export interface EntryKind {
  /** The group an entry's file name belongs to (entries of a group are kept or removed together); null: not this kind. */
  group: (name: string) => string | null;
  /** How many groups besides the current one may stay (the most recently written). */
  keep: number;
  /** Prune only once more than this many other groups are found (default `keep`): a big kind is pruned now and then, not at every write. */
  above?: number;
}

/** The directories each kind was pruned in by this process. */
const pruned = new WeakMap<EntryKind, Set<string>>();

/**
 * Remove stale entries of one kind from `dir` (a directory of the checked cache): called when
 * an entry of group `current` has just been written (a miss), never on a start that found its
 * entry, and at most once per process, kind and directory.  Entries of other groups are ranked by
 * their newest file's mtime; all but the `keep` most recent groups are removed.  Only regular
 * files this user owns are considered (never a symlink: lstat, and unlink removes no target);
 * `dir` itself must be a real directory this user owns.  Best effort: failures are ignored.
 */
export function pruneKind(dir: string, kind: EntryKind, current: string | null): void {
  let done = pruned.get(kind);
  if (!done) pruned.set(kind, (done = new Set()));
  if (done.has(dir)) return;
  done.add(dir);
  try {
    const me = uid();
    const d = fs.lstatSync(dir);
    if (!d.isDirectory() || (me >= 0 && d.uid !== me)) return;
    const groups = new Map<string, string[]>();
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isFile()) continue; // (symlinks, directories)
      const g = kind.group(e.name);
      if (g === null || g === current) continue;
      const l = groups.get(g);
      if (l) l.push(e.name);
      else groups.set(g, [e.name]);
    }
    if (groups.size <= (kind.above ?? kind.keep)) return;
    const ranked: { files: string[]; newest: number }[] = [];
    for (const names of groups.values()) {
      const files: string[] = [];
      let newest = -Infinity;
      for (const n of names) {
        const f = path.join(dir, n);
        const st = fs.lstatSync(f, { throwIfNoEntry: false });
        if (!st || !st.isFile() || (me >= 0 && st.uid !== me)) continue;
        files.push(f);
        newest = Math.max(newest, st.mtimeMs);
      }
      if (files.length) ranked.push({ files, newest });
    }
    ranked.sort((a, b) => b.newest - a.newest);
    for (const { files } of ranked.slice(kind.keep)) {
      for (const f of files) {
        try {
          fs.unlinkSync(f);
        } catch {
          // gone meanwhile
        }
      }
    }
  } catch {
    // caches are best effort
  }
}

/** A kind whose entries are `PREFIX<key>SUFFIX` files, each its own group. */
export function namedKind(prefix: string, suffix: string, keep: number, above?: number): EntryKind {
  return { group: (n) => (n.startsWith(prefix) && n.endsWith(suffix) && n.length > prefix.length + suffix.length ? n : null), keep, above };
}

// ---------------------------------------------------------------------------------------------
// Sealed entries: `tapsim-sealed <crc32 hex> <length>\n` + content

const SEAL = 'tapsim-sealed ';

let crcTable: Int32Array | undefined;
let nativeCrc: ((b: Uint8Array, v: number) => number) | null | undefined;

/** The zlib binding's crc32 (native; loading the zlib module would cost a start ~2 ms). */
function native(): ((b: Uint8Array, v: number) => number) | null {
  if (nativeCrc === undefined) {
    const f = quietBinding('zlib')?.crc32;
    nativeCrc = typeof f === 'function' ? (f as (b: Uint8Array, v: number) => number) : null;
  }
  return nativeCrc;
}

/** CRC-32 (IEEE) of bytes. */
export function crc32(b: Uint8Array): number {
  const n = native();
  if (n) return n(b, 0) >>> 0;
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[i] = c;
    }
  }
  let c = -1;
  for (let i = 0; i < b.length; i++) c = crcTable[(c ^ b[i]) & 255] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** An entry as stored: the seal line, then the content. */
export function seal(content: string | Uint8Array): Buffer {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return Buffer.concat([Buffer.from(`${SEAL}${crc32(body).toString(16)} ${body.length}\n`, 'latin1'), body]);
}

/** The longest seal line (without its newline) unseal accepts. */
const SEAL_MAX = 64;

/** A stored entry's seal line (`head`, up to its newline): the content's CRC-32 and length. */
function sealLine(head: Buffer): { crc: number; length: number } | null {
  if (head.toString('latin1', 0, SEAL.length) !== SEAL) return null;
  const m = /^([0-9a-f]{1,8}) (\d{1,12})$/.exec(head.toString('latin1', SEAL.length));
  return m ? { crc: parseInt(m[1], 16), length: Number(m[2]) } : null;
}

/** The content of a stored entry, or null when it is not one or is damaged. */
export function unseal(buf: Buffer): Buffer | null {
  const nl = buf.indexOf(10);
  if (nl < 0 || nl > SEAL_MAX) return null;
  const line = sealLine(buf.subarray(0, nl));
  const body = buf.subarray(nl + 1);
  if (!line || body.length !== line.length || crc32(body) !== line.crc) return null;
  return body;
}

/** Read and unseal an entry (null: missing, unreadable or damaged). */
export function readSealed(file: string): Buffer | null {
  try {
    return unseal(fs.readFileSync(file));
  } catch {
    return null;
  }
}

/**
 * readSealed, the content read into `scratch` from its first byte when it fits (else into a
 * buffer of its own), never after the seal line: V8 copies a code cache that does not start at
 * an 8-byte boundary before using it, and a start that reuses the memory it read its bundle
 * into touches ~200 fewer fresh pages (src/cli/launch.ts).  The content is `scratch`'s memory:
 * valid until `scratch` is written again.
 */
export function readSealedInto(file: string, scratch?: Buffer): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.allocUnsafe(SEAL_MAX + 1);
    const nl = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).indexOf(10);
    const line = nl < 0 ? null : sealLine(head.subarray(0, nl));
    if (!line || line.length !== size - nl - 1) return null;
    const body = scratch && scratch.length >= line.length ? scratch.subarray(0, line.length) : Buffer.allocUnsafeSlow(line.length);
    if (readFully(fd, body, nl + 1) !== body.length || crc32(body) !== line.crc) return null;
    return body;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Read from `fd` at `position` until `buf` is full or the file ends; the bytes read. */
export function readFully(fd: number, buf: Uint8Array, position = 0): number {
  let got = 0;
  while (got < buf.length) {
    const n = fs.readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Seal and write an entry atomically. */
export function writeSealed(file: string, content: string | Uint8Array): void {
  writeAtomic(file, seal(content));
}

/**
 * A 128-bit non-cryptographic digest (four FNV-1a lanes with different offsets) as 32 hex
 * digits, for cache file names and keys; cheaper to start than node:crypto.
 */
export function digestHex(text: string): string {
  let h0 = 0x811c9dc5, h1 = 0x050c5d1f, h2 = 0x2f3b1a55, h3 = 0x6a09e667;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h0 = Math.imul(h0 ^ c, 0x01000193);
    h1 = Math.imul(h1 ^ c, 0x01000193) ^ (h0 >>> 15);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h1 >>> 13);
    h3 = Math.imul(h3 ^ c, 0x01000193) ^ (h2 >>> 11);
  }
  return [h0, h1, h2, h3].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
}
