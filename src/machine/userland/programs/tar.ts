/**
 * GNU tar 1.34's archive creation (`tar cf ARCHIVE NAME...`, create.c dump_file / dump_dir) with the
 * system calls strace shows Debian 12's tar make (data/recordings/tar.json.gz, `tar cf /root/etc.tar
 * /etc`): each member is lstat'ed through its directory's descriptor (newfstatat AT_SYMLINK_NOFOLLOW)
 * and opened O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC; a directory is fstat'ed twice, its
 * flags read and FD_CLOEXEC set, read to the end with getdents64, its header made (the owner and
 * group names looked up once each: getpwuid/getgrgid), its entries archived in the order getdents
 * returned them, and it is fstat'ed again (did it change?) and closed; a file's header goes into the
 * record buffer after its fstat, then reads of at most what is left of the file and of the 10 KiB
 * record (a record is written when full), a second fstat and close (an empty file readable by all is not
 * opened: a second lstat); a symlink is read with readlinkat.
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import { getpwuidName, getgrgidName } from '../libc_nss';
import { readDir, areadlink } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_EMPTY_PATH = 0x1000;
/** O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC */
const OPEN_FLAGS = 0xa0900;
const F_GETFL = 3, F_SETFD = 2, FD_CLOEXEC = 1;
export const RECORD = 10240;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}
/** a ustar (GNU magic) header: type '0' file, '5' directory, '2' symlink (`link` its target) */
export function tarHeader(name: string, size: number, mode: number, mtime: number, type: '0' | '5' | '2', uid: number, gid: number,
  link = '', uname?: string, gname?: string): Uint8Array {
  const h = new Uint8Array(512);
  const put = (off: number, s: string) => { for (let i = 0; i < s.length; i++) h[off + i] = s.charCodeAt(i) & 0xff; };
  let prefix = '';
  let nm = name;
  if (nm.length > 100) { const i = nm.lastIndexOf('/', 155); prefix = nm.slice(0, i); nm = nm.slice(i + 1); }
  put(0, nm.slice(0, 100));
  put(100, octal(mode & 0o7777, 8));
  put(108, octal(uid, 8));
  put(116, octal(gid, 8));
  put(124, octal(size, 12));
  put(136, octal(mtime, 12));
  put(148, '        ');
  put(156, type);
  put(157, link.slice(0, 100));
  put(257, 'ustar  \0');
  put(265, uname ?? (uid === 0 ? 'root' : uid === 1000 ? 'user' : String(uid)));
  put(297, gname ?? (gid === 0 ? 'root' : gid === 1000 ? 'user' : String(gid)));
  put(345, prefix);
  let sum = 0;
  for (const x of h) sum += x;
  put(148, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

/** The archive being written: full records go to `fd` as they fill (fd < 0: kept for the caller). */
export class TarWriter {
  private buf: Uint8Array[] = [];
  private used = 0;
  readonly kept: Uint8Array[] = [];
  constructor(readonly u: U, readonly fd: number) {}
  /** space left in the current record */
  get space(): number { return RECORD - this.used; }
  *add(b: Uint8Array): G<void> {
    let off = 0;
    while (off < b.length) {
      const n = Math.min(b.length - off, RECORD - this.used);
      this.buf.push(b.subarray(off, off + n));
      this.used += n;
      off += n;
      if (this.used === RECORD) yield* this.flush();
    }
  }
  private *flush(): G<void> {
    const rec = Buffer.concat(this.buf);
    this.buf = [];
    this.used = 0;
    if (this.fd >= 0) yield* this.u.writeAll(this.fd, rec); else this.kept.push(rec);
  }
  /** the end-of-archive blocks and the last record, zero-padded */
  *finish(): G<void> {
    yield* this.add(new Uint8Array(1024));
    if (this.used) yield* this.add(new Uint8Array(RECORD - this.used));
  }
}

/** one archive creation's state */
export interface TarCreate {
  /** seconds since the epoch of a machine time (member mtimes) */
  epochOf(ns: number): number;
  verbose: boolean;
  out: TarWriter;
  status: number;
  /** the leading-'/' warning was given */
  warned: boolean;
  /** user and group names looked up (u0, g0, ...) */
  names: Map<string, string | null>;
}

function* ownerNames(u: U, c: TarCreate, uid: number, gid: number): G<[string, string]> {
  const ku = `u${uid}`, kg = `g${gid}`;
  if (!c.names.has(ku)) c.names.set(ku, yield* getpwuidName(u, uid));
  if (!c.names.has(kg)) c.names.set(kg, yield* getgrgidName(u, gid));
  return [c.names.get(ku) ?? String(uid), c.names.get(kg) ?? String(gid)];
}

function* header(u: U, c: TarCreate, name: string, s: StatInfo, type: '0' | '5' | '2', size: number, link = ''): G<void> {
  const [un, gn] = yield* ownerNames(u, c, s.uid, s.gid);
  if (c.verbose) yield* u.out(`${name}\n`);
  yield* c.out.add(tarHeader(name, size, s.mode, c.epochOf(s.mtime), type, s.uid, s.gid, link, un, gn));
}

const statOf = (r: SysResult): StatInfo | null => (r.ret < 0 ? null : (r.info as unknown as StatInfo));

/** dump_file: the member `name` (`rel` through directory descriptor `dfd`) */
export function* dumpFile(u: U, c: TarCreate, dfd: number, rel: string, name: string): G<void> {
  const s = statOf(yield* u.sys('newfstatat', [dfd, rel, 0, AT_SYMLINK_NOFOLLOW]));
  if (!s) { yield* u.err(`tar: ${name}: Cannot stat: No such file or directory\n`); c.status = 2; return; }
  if (s.isLnk) {
    yield* header(u, c, name, s, '2', 0, (yield* areadlink(u, rel, s.size, dfd)) ?? '');
    return;
  }
  if (!s.isDir && !s.isReg) return;
  // an empty file readable by all is not opened (file_dumpable_p): its header, then a second lstat
  if (s.isReg && s.size === 0 && (s.mode & 0o444) === 0o444) {
    yield* header(u, c, name, s, '0', 0);
    yield* u.sys('newfstatat', [dfd, rel, 0, AT_SYMLINK_NOFOLLOW]);
    return;
  }
  const fd = (yield* u.sys('openat', [dfd, rel, OPEN_FLAGS])).ret;
  if (fd < 0) { yield* u.err(`tar: ${name}: Cannot open: Permission denied\n`); c.status = 2; return; }
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  if (s.isDir) {
    yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
    yield* u.sys('fcntl', [fd, F_GETFL]);
    yield* u.sys('fcntl', [fd, F_SETFD, FD_CLOEXEC]);
    const ents = yield* readDir(u, fd);
    const dname = name.replace(/\/?$/, '/');
    yield* header(u, c, dname, s, '5', 0);
    for (const e of ents) if (e.name !== '.' && e.name !== '..') yield* dumpFile(u, c, fd, e.name, dname + e.name);
  } else {
    yield* header(u, c, name, s, '0', s.size);
    let left = s.size;
    while (left > 0) {
      const r = yield* u.sys('read', [fd, 0, Math.min(left, c.out.space)]);
      if (r.ret <= 0 || !r.data) break;
      left -= r.ret;
      const pad = r.ret % 512 ? 512 - (r.ret % 512) : 0;
      yield* c.out.add(pad ? Buffer.concat([r.data, new Uint8Array(pad)]) : r.data);
    }
    // a file that shrank while read: tar pads the member with zeros to the size it announced
    if (left > 0) yield* c.out.add(new Uint8Array(Math.ceil(left / 512) * 512));
  }
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.close(fd);
}

/** tar's member name for an operand: leading slashes removed (warned about once) */
export function* memberName(u: U, c: TarCreate, p: string): G<string> {
  const name = p.replace(/^\/+/, '') || '.';
  if (name !== p && !c.warned) {
    c.warned = true;
    // gnulib error(): the program name, the message and the newline are three writes
    yield* u.writeAll(2, 'tar: ');
    yield* u.writeAll(2, "Removing leading `/' from member names");
    yield* u.writeAll(2, '\n');
  }
  return name;
}
