/**
 * Extended attributes (fs/xattr.c): getxattr/lgetxattr/fgetxattr, listxattr/llistxattr/flistxattr,
 * setxattr/lsetxattr/fsetxattr, removexattr/lremovexattr/fremovexattr.  A Debian 12 install without
 * SELinux and without ACLs has none: `ls -l` asks each file for security.selinux and
 * system.posix_acl_access (directories also system.posix_acl_default) and gets ENODATA
 * (data/recordings/ls-l.json.gz).  Attributes a program sets are kept per inode; the sizes follow
 * the syscalls' rules (size 0 asks for the length, a smaller buffer is ERANGE).
 */
import type { FsMachine } from './namei';
import type { Env } from '../include/kstack';
import type { Inode } from '../include/fs';
import type { Task } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { fdOf } from '../include/fdtable';

const EPERM = 1, ENOENT = 2, EBADF = 9, EEXIST = 17, ERANGE = 34, ENODATA = 61, EOPNOTSUPP = 95;
const XATTR_CREATE = 1, XATTR_REPLACE = 2;
/** XATTR_SIZE_MAX */
const SIZE_MAX = 65536;

export const fsXattr = new Semantics<FsMachine>('fs/xattr');

const attrs = new WeakMap<Inode, Map<string, Uint8Array>>();

type Target = { ino: Inode | null; err: number };
/** the inode of a path call (following the final symlink or not) or of a descriptor call */
function target(m: FsMachine, t: Task, e: Env, kind: 'path' | 'lpath' | 'fd'): Target {
  if (kind === 'fd') { const f = fdOf(t, e.a[0]); return { ino: f?.inode ?? null, err: EBADF }; }
  return { ino: m.fs.lookup(String(e.a[0]), t.proc.cwd, kind === 'lpath'), err: ENOENT };
}
/** the namespaces a file system supports here: user.*, trusted.* and security.* (ext4); system.* ACL names */
function supported(ino: Inode, name: string): boolean {
  if (ino.fs === 'proc' || ino.fs === 'sysfs' || ino.pseudo) return false;
  return /^(user|trusted|security)\.|^system\.posix_acl_(access|default)$/.test(name);
}

function* kinds(): Generator<['path' | 'lpath' | 'fd', string]> {
  yield ['path', '']; yield ['lpath', 'l']; yield ['fd', 'f'];
}
for (const [kind, pre] of kinds()) {
  fsXattr.syscall(`${pre}getxattr`, (m, _c, t, e) => {
    const { ino, err } = target(m, t, e, kind);
    if (!ino) { e.ret = -err; return H_CONT; }
    const name = String(e.a[1]);
    const v = attrs.get(ino)?.get(name);
    const size = Number(e.a[3]);
    if (!v) e.ret = supported(ino, name) ? -ENODATA : -EOPNOTSUPP;
    else if (size && size < v.length) e.ret = -ERANGE;
    else { e.ret = v.length; if (size) e.data = v; }
    return H_CONT;
  });
  fsXattr.syscall(`${pre}listxattr`, (m, _c, t, e) => {
    const { ino, err } = target(m, t, e, kind);
    if (!ino) { e.ret = -err; return H_CONT; }
    const names = [...(attrs.get(ino)?.keys() ?? [])];
    const len = names.reduce((n, s) => n + s.length + 1, 0);
    const size = Number(e.a[2]);
    e.ret = size && size < len ? -ERANGE : len;
    if (size && e.ret >= 0) e.info = { names };
    return H_CONT;
  });
  fsXattr.syscall(`${pre}setxattr`, (m, _c, t, e) => {
    const { ino, err } = target(m, t, e, kind);
    if (!ino) { e.ret = -err; return H_CONT; }
    const name = String(e.a[1]);
    const flags = Number(e.a[4]);
    if (!supported(ino, name)) { e.ret = -EOPNOTSUPP; return H_CONT; }
    if (!name.startsWith('user.') && t.euid !== 0) { e.ret = -EPERM; return H_CONT; }
    const v = (e.buf as Uint8Array | undefined) ?? new Uint8Array(Number(e.a[3]));
    if (v.length > SIZE_MAX) { e.ret = -ERANGE; return H_CONT; }
    let map = attrs.get(ino);
    if (!map) attrs.set(ino, (map = new Map()));
    if (flags & XATTR_CREATE && map.has(name)) { e.ret = -EEXIST; return H_CONT; }
    if (flags & XATTR_REPLACE && !map.has(name)) { e.ret = -ENODATA; return H_CONT; }
    map.set(name, Uint8Array.from(v));
    e.ret = 0;
    return H_CONT;
  });
  fsXattr.syscall(`${pre}removexattr`, (m, _c, t, e) => {
    const { ino, err } = target(m, t, e, kind);
    if (!ino) { e.ret = -err; return H_CONT; }
    e.ret = attrs.get(ino)?.delete(String(e.a[1])) ? 0 : -ENODATA;
    return H_CONT;
  });
}
