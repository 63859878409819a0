/**
 * dbench's fileio backend (dbench 4.0 fileio.c): each NetBench operation done on the local file system
 * under -D, as strace of Debian 12's dbench shows it (data/recordings/dbench.json.gz): resolve_name's
 * stat and, for a name not found, the scan of its directory; open/mkdir/pwrite/pread/fstat/statfs/
 * rename/unlink/fsync/utime/fcntl; nb_cleanup's deltree of clients/clientN (stat and unlink of each
 * file, its subdirectories recursed) and rmdir of clients.
 */
import type { U } from '../../process/user';
import type { Child, G, NbClient, OpName } from './dbench_child';
import { ival } from './dbench_child';

const O_RDONLY = 0, O_RDWR = 2, O_CREAT = 0o100, O_TRUNC = 0o1000, O_DIRECTORY = 0o200000;
/** opendir(3): O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY */
const OPENDIR = 0o4000 | 0o2000000 | O_DIRECTORY;
const EISDIR = 21;
const FILE_CREATE = 2, FILE_OVERWRITE = 4, FILE_OVERWRITE_IF = 5, FILE_DIRECTORY_FILE = 1;
const F_SETLKW = 7;

const zeros = new Map<number, Uint8Array>();
const zeroBuf = (n: number): Uint8Array => { let b = zeros.get(n); if (!b) zeros.set(n, b = new Uint8Array(n)); return b; };

/** One client's fileio backend (nb_setup allocates its file table: no call). */
export function fileioClient(u: U, child: Child): NbClient {
  const files = new Map<number, { fd: number; name: string }>();
  const dir = child.directory;
  const expectOk = (status: string): boolean => status === 'NT_STATUS_OK' || (status.startsWith('0x') && Number.parseInt(status, 16) === 0);

  /** opendir, readdir to the end (or `stop`), closedir: the names read */
  const scan = function* (d: string, stop?: (n: string) => boolean): G<string[] | null> {
    const fd = (yield* u.sys('openat', [-100, d, OPENDIR])).ret;
    if (fd < 0) return null;
    yield* u.fstat(fd);
    const names: string[] = [];
    for (;;) {
      const r = yield* u.sys('getdents64', [fd, 0, 32768]);
      if (r.ret <= 0) break;
      const got = (r.info?.names as string[]) ?? [];
      names.push(...got);
      if (stop && got.some(stop)) break;
    }
    yield* u.close(fd);
    return names;
  };
  /** pvfs_resolve_name's simulation: stat, and for a name not found a case-insensitive scan of its directory */
  const resolve = function* (name: string): G<void> {
    if (typeof (yield* u.stat(name)) !== 'number') return;
    const slash = name.lastIndexOf('/');
    if (slash < 0) return;
    const want = name.slice(slash + 1).toLowerCase();
    yield* scan(name.slice(0, slash), (n) => n.toLowerCase() === want);
  };
  const handle = (h: number): { fd: number; name: string } => {
    const f = files.get(h);
    if (!f) throw new Error(`dbench: handle ${h} was not found`);
    return f;
  };
  const deltree = function* (d: string): G<void> {
    const fd = (yield* u.sys('openat', [-100, d, OPENDIR])).ret;
    if (fd < 0) return;
    yield* u.fstat(fd);
    for (;;) {
      const r = yield* u.sys('getdents64', [fd, 0, 32768]);
      if (r.ret <= 0) break;
      for (const n of (r.info?.names as string[]) ?? []) {
        if (n === '.' || n === '..') continue;
        const p = `${d}/${n}`;
        const st = yield* u.stat(p);
        if (typeof st === 'number') continue;
        if (st.isDir) yield* deltree(p);
        else yield* u.sys('unlink', [p]);
      }
    }
    yield* u.close(fd);
  };

  const op = function* (params: readonly string[], fname: string, fname2: string, status: string): G<OpName | null> {
    switch (params[0]) {
      case 'NTCreateX': {
        const opts = ival(params[2]);
        const disp = ival(params[3]);
        yield* resolve(fname);
        let flags = O_RDWR;
        if (disp === FILE_CREATE) flags |= O_CREAT;
        if (disp === FILE_OVERWRITE || disp === FILE_OVERWRITE_IF) flags |= O_CREAT | O_TRUNC;
        if (opts & FILE_DIRECTORY_FILE) { yield* u.sys('mkdir', [fname, 0o700]); flags = O_RDONLY | O_DIRECTORY; }
        let fd = (yield* u.sys('openat', [-100, fname, flags, 0o600])).ret;
        if (fd === -EISDIR) fd = (yield* u.sys('openat', [-100, fname, O_RDONLY | O_DIRECTORY, 0o600])).ret;
        if (fd < 0) return 'NTCreateX';
        if (!expectOk(status)) { yield* u.close(fd); return 'NTCreateX'; }
        files.set(ival(params[4]), { fd, name: fname });
        yield* u.fstat(fd);
        return 'NTCreateX';
      }
      case 'Close': { const f = handle(ival(params[1])); yield* u.close(f.fd); files.delete(ival(params[1])); return 'Close'; }
      case 'Rename': yield* resolve(fname); yield* resolve(fname2); yield* u.sys('rename', [fname, fname2]); return 'Rename';
      case 'Unlink': yield* resolve(fname); yield* u.sys('unlink', [fname]); return 'Unlink';
      case 'Deltree': yield* deltree(fname); return 'Deltree';
      case 'Rmdir': yield* resolve(fname); yield* u.sys('rmdir', [fname]); return 'Rmdir';
      case 'Mkdir': yield* resolve(fname); yield* u.sys('mkdir', [fname, 0o777]); return 'Mkdir';
      case 'QUERY_PATH_INFORMATION': yield* resolve(fname); return 'Qpathinfo';
      case 'QUERY_FILE_INFORMATION': yield* u.fstat(handle(ival(params[1])).fd); return 'Qfileinfo';
      case 'QUERY_FS_INFORMATION': yield* u.sys('statfs', [dir, 0]); return 'Qfsinfo';
      case 'SET_FILE_INFORMATION': {
        const f = handle(ival(params[1]));
        yield* u.fstat(f.fd);
        yield* u.sys('utime', [f.name, 0]);
        return 'Sfileinfo';
      }
      case 'FIND_FIRST': {
        yield* resolve(fname);
        if (!/[<>*?"]/.test(fname)) return 'Find';
        const slash = fname.lastIndexOf('/');
        if (slash < 0) return 'Find';
        let maxcnt = ival(params[3]);
        const fd = (yield* u.sys('openat', [-100, fname.slice(0, slash), OPENDIR])).ret;
        if (fd < 0) return 'Find';
        yield* u.fstat(fd);
        while (maxcnt > 0) {
          const r = yield* u.sys('getdents64', [fd, 0, 32768]);
          if (r.ret <= 0) break;
          maxcnt -= ((r.info?.names as string[]) ?? []).length;
        }
        yield* u.close(fd);
        return 'Find';
      }
      case 'WriteX': {
        const f = handle(ival(params[1]));
        const size = ival(params[3]);
        yield* u.pwrite(f.fd, zeroBuf(size), ival(params[2]));
        child.bytes += size;
        return 'WriteX';
      }
      case 'ReadX': {
        const f = handle(ival(params[1]));
        const size = ival(params[3]);
        yield* u.pread(f.fd, size, ival(params[2]));
        child.bytes += size;
        return 'ReadX';
      }
      case 'LockX': case 'UnlockX':
        yield* u.sys('fcntl', [handle(ival(params[1])).fd, F_SETLKW, 0]);
        return params[0];
      case 'Flush': yield* u.fsync(handle(ival(params[1])).fd); return 'Flush';
      default: return null;
    }
  };

  return {
    op,
    // nb_cleanup
    *cleanup() {
      yield* deltree(`${dir}/clients/client${child.id}`);
      yield* u.sys('rmdir', [`${dir}/clients`]);
    },
  };
}
