/**
 * Function arguments at call sites: what a probe on a simulated kernel function sees as `$args`.
 *
 * Every function node of a path gets the arguments of its real 6.1 prototype (btfFunc) when its
 * site is live (nothing is computed while no probe is attached). Values come from the path
 * environment by parameter name and type:
 *
 *  - syscall arguments by their SYSCALL_DEFINE names (`fd`, `buf`, `count`, `filename`, `flags`,
 *    `mode`, `pid`, `sig` ...) from `e.a`; `__x64_sys_*(regs)` gets a `struct pt_regs`;
 *  - pointers to kernel objects as the machine's JS objects (`Task` for task_struct, `OpenFile`
 *    for `struct file`, `Inode` for `struct inode`, ...) which src/kernel/memory.ts turns into
 *    kernel addresses on first use (`kmem.addrOf`) through the materializers installed here:
 *    a `struct file` gets `f_path.dentry` -> `struct dentry` (`d_name.name`, `d_name.len`,
 *    `d_inode`, `d_parent`), `f_inode`, `f_op` (the file kind's `struct file_operations`, members
 *    pointing at 6.1's functions), `f_pos`, `f_flags`, `f_mode`; a `struct inode` gets
 *    `i_ino`, `i_mode`, `i_size`, `i_nlink`, `i_uid`, `i_gid`;
 *  - user pointers (`char __user *`) as addresses in the process' user space
 *    (`userSpace(tgid)`), holding the path string or the written data, so `user_string($filename)`
 *    and `user_string_n($buf, n)` read them; `kernel_string` of a `struct filename *`'s `name`
 *    reads the kernel copy getname() made;
 *  - `loff_t *pos` as a kernel address holding the position; sizes (`count`, `len`, `size`) as
 *    numbers; anything unknown is 0.
 *
 * defineFnArgs(name, builder) (kexec.ts) still overrides the generic builder for one function.
 */
import { btfFunc, btfResolve, btfType, btfTypeName, BtfKind } from '../kernel/btf';
import { symbolName, symbolAddr, lookupName, isFunction } from '../kernel/kallsyms';
import { syscallByName } from '../kernel/syscalls';
import { kmem, userSpace, KernelMemory } from '../kernel/memory';
import { Inode, OpenFile } from './fs';
import { Sock, SocketView, socketView } from './net';
import type { Machine, Cpu } from './machine';
import type { Env, Task } from './task';
import { openingFile, setFilenameSource } from './kobjects';
import { InlinedFunction, inlineParamBtf } from '../kernel/inline_sites';

type Getter = (m: Machine, c: Cpu, t: Task, e: Env) => unknown;

// ---------------------------------------------------------------- materializers

function basename(m: Machine | null, ino: Inode): string {
  const par = ino.parent;
  if (!par || !par.children) return '/';
  for (const [k, v] of par.children) if (v === ino) return k;
  void m;
  return '?';
}

function inodeAddr(mem: KernelMemory, ino: Inode): number {
  const T = 'struct inode';
  const a = mem.allocStruct(T);
  mem.bind(ino, a);
  mem.setField(a, T, 'i_ino', ino.ino);
  mem.setField(a, T, 'i_mode', ino.mode);
  mem.setField(a, T, 'i_size', ino.size);
  mem.setField(a, T, '__i_nlink', ino.nlink);
  mem.setField(a, T, 'i_uid.val', ino.uid);
  mem.setField(a, T, 'i_gid.val', ino.gid);
  mem.setField(a, T, 'i_blkbits', 12);
  return a;
}

const dentries = new WeakMap<Inode, number>();
/** The struct dentry of an inode (one per inode: the machine has no hard-link aliases). */
export function dentryAddr(mem: KernelMemory, ino: Inode): number {
  let a = dentries.get(ino);
  if (a !== undefined) return a;
  const T = 'struct dentry';
  a = mem.allocStruct(T);
  dentries.set(ino, a);
  const name = basename(null, ino);
  mem.setField(a, T, 'd_name.name', name.length < 32 ? 0 : mem.strdup(name));
  if (name.length < 32) {
    // short names live in d_iname, as __d_alloc does
    mem.setField(a, T, 'd_iname', name);
    mem.setField(a, T, 'd_name.name', a + mem.fieldOf(T, 'd_iname').offset);
  }
  mem.setField(a, T, 'd_name.len', name.length);
  mem.setField(a, T, 'd_inode', mem.addrOf(ino));
  mem.setField(a, T, 'd_parent', ino.parent && ino.parent !== ino ? dentryAddr(mem, ino.parent) : a);
  return a;
}

/**
 * The struct vfsmount of the machine's mount of an inode's tree: one struct mount for the root
 * filesystem (ext4 on /dev/sda1, whose tree also holds /proc, /dev and /sys), its own parent,
 * mnt_root and mnt_mountpoint the root dentry (as a namespace's root mount is).
 */
const mounts = new WeakMap<Inode, number>();
export function vfsmountOf(mem: KernelMemory, ino: Inode): number {
  let root = ino;
  for (let i = 0; i < 4096 && root.parent && root.parent !== root; i++) root = root.parent;
  let a = mounts.get(root);
  if (a !== undefined) return a;
  const M = 'struct mount';
  const m = mem.allocStruct(M);
  const sb = mem.allocStruct('struct super_block');
  mem.setField(sb, 'struct super_block', 's_magic', 0xef53); // EXT4_SUPER_MAGIC
  mem.setField(sb, 'struct super_block', 's_dev', (8 << 20) | 1); // sda1
  const d = dentryAddr(mem, root);
  a = m + mem.fieldOf(M, 'mnt').offset;
  mem.setField(m, M, 'mnt.mnt_root', d);
  mem.setField(m, M, 'mnt.mnt_sb', sb);
  mem.setField(m, M, 'mnt_parent', m);
  mem.setField(m, M, 'mnt_mountpoint', d);
  mounts.set(root, a);
  return a;
}

// struct file_operations of the file kinds the machine has (6.1's tables, members that scripts
// test: read/read_iter/write/write_iter/llseek/open/release/fsync/mmap/iterate_shared)
const FOPS: Record<string, Record<string, string>> = {
  ext4_file_operations: {
    llseek: 'ext4_llseek', read_iter: 'ext4_file_read_iter', write_iter: 'ext4_file_write_iter',
    mmap: 'ext4_file_mmap', open: 'ext4_file_open', release: 'ext4_release_file', fsync: 'ext4_sync_file',
  },
  ext4_dir_operations: {
    llseek: 'ext4_dir_llseek', read: 'generic_read_dir', iterate_shared: 'ext4_readdir',
    release: 'ext4_release_dir', fsync: 'ext4_sync_file',
  },
  shmem_file_operations: {
    llseek: 'shmem_file_llseek', read_iter: 'shmem_file_read_iter', write_iter: 'generic_file_write_iter', mmap: 'shmem_mmap',
  },
  proc_iter_file_ops: {
    llseek: 'proc_reg_llseek', read_iter: 'proc_reg_read_iter', write: 'proc_reg_write',
    open: 'proc_reg_open', release: 'proc_reg_release',
  },
  kernfs_file_fops: { read_iter: 'kernfs_fop_read_iter', write_iter: 'kernfs_fop_write_iter', open: 'kernfs_fop_open', llseek: 'generic_file_llseek' },
  pipefifo_fops: { open: 'fifo_open', llseek: 'noop_llseek', read_iter: 'pipe_read', write_iter: 'pipe_write', release: 'pipe_release' },
  socket_file_ops: { llseek: 'noop_llseek', read_iter: 'sock_read_iter', write_iter: 'sock_write_iter', release: 'sock_close' },
  null_fops: { llseek: 'noop_llseek', read: 'read_null', write: 'write_null', read_iter: 'read_iter_null', write_iter: 'write_iter_null' },
  zero_fops: { llseek: 'noop_llseek', write: 'write_null', read_iter: 'read_iter_zero', write_iter: 'write_iter_null' },
  urandom_fops: { read_iter: 'urandom_read_iter', write_iter: 'random_write_iter', llseek: 'noop_llseek' },
  random_fops: { read_iter: 'random_read_iter', write_iter: 'random_write_iter', llseek: 'noop_llseek' },
  tty_fops: { llseek: 'noop_llseek', read_iter: 'tty_read', write_iter: 'tty_write', open: 'tty_open', release: 'tty_release' },
  def_blk_fops: { open: 'blkdev_open', release: 'blkdev_close', read_iter: 'blkdev_read_iter', write_iter: 'blkdev_write_iter' },
};

function fopsName(ino: Inode): string {
  if (ino.isBlk) return 'def_blk_fops';
  if (ino.isChr) {
    const d = ino.dev;
    return d === 'null' ? 'null_fops' : d === 'zero' ? 'zero_fops' : d === 'urandom' ? 'urandom_fops'
      : d === 'random' ? 'random_fops' : 'tty_fops';
  }
  switch (ino.fs) {
    case 'proc': return 'proc_iter_file_ops';
    case 'sysfs': return 'kernfs_file_fops';
    case 'pipefs': return 'pipefifo_fops';
    case 'sockfs': return 'socket_file_ops';
    case 'tmpfs': case 'devtmpfs': return 'shmem_file_operations';
    default: return ino.isDir ? 'ext4_dir_operations' : 'ext4_file_operations';
  }
}

const fopsAddrs = new Map<string, number>();
function fopsAddr(mem: KernelMemory, name: string): number {
  let a = fopsAddrs.get(name);
  if (a !== undefined) return a;
  const T = 'struct file_operations';
  a = mem.allocStruct(T);
  for (const [member, fn] of Object.entries(FOPS[name])) {
    const id = lookupName(fn).find(isFunction);
    if (id !== undefined) mem.setField(a, T, member, symbolAddr(id));
  }
  fopsAddrs.set(name, a);
  return a;
}

function fileAddr(mem: KernelMemory, f: OpenFile): number {
  const a = mem.allocStruct('struct file');
  mem.bind(f, a);
  fillFile(mem, a, f);
  return a;
}

/** Lay out the struct file at `a` for the machine's open file `f` (do_dentry_open's result). */
export function fillFile(mem: KernelMemory, a: number, f: OpenFile): void {
  const T = 'struct file';
  mem.setField(a, T, 'f_flags', f.flags);
  mem.setField(a, T, 'f_mode', ((f.flags & 3) === 0 ? 1 : (f.flags & 3) === 1 ? 2 : 3) | 0x18);
  mem.setField(a, T, 'f_pos', f.pos);
  mem.setField(a, T, 'f_count.counter', f.refs);
  if (f.inode) {
    mem.setField(a, T, 'f_inode', mem.addrOf(f.inode));
    mem.setField(a, T, 'f_path.dentry', dentryAddr(mem, f.inode));
    mem.setField(a, T, 'f_path.mnt', vfsmountOf(mem, f.inode));
    mem.setField(a, T, 'f_op', fopsAddr(mem, fopsName(f.inode)));
  }
  if (f.sock) mem.setField(a, T, 'private_data', socketView(f.sock));
}

/** struct socket: state, type, flags, sk (the struct sock), file left 0 */
function socketAddr(mem: KernelMemory, v: SocketView): number {
  const T = 'struct socket';
  const a = mem.allocStruct(T);
  mem.bind(v, a);
  mem.setField(a, T, 'state', v.ssState);
  mem.setField(a, T, 'type', v.sk.type);
  mem.setField(a, T, 'flags', 0);
  mem.setField(a, T, 'sk', v.sk);
  return a;
}

let installed = false;
/** Teach kernel memory how to lay out the machine's objects (idempotent). */
export function installMaterializers(): void {
  if (installed) return;
  installed = true;
  kmem.addMaterializer((o, mem) => {
    if (o instanceof OpenFile) return fileAddr(mem, o);
    if (o instanceof Inode) return inodeAddr(mem, o);
    if (o instanceof SocketView) return socketAddr(mem, o);
    return null;
  });
}

// ---------------------------------------------------------------- user memory

const USER_SCRATCH = 0x7ffc5a3e0000;
const userCursor = new Map<number, number>();
/** Copy a string or bytes into the process' user space (a stack-like scratch area); its address. */
export function userCopy(tgid: number, v: string | Uint8Array): number {
  const us = userSpace(tgid);
  const len = typeof v === 'string' ? v.length + 1 : v.length;
  let at = userCursor.get(tgid) ?? USER_SCRATCH;
  if (at + len > USER_SCRATCH + (1 << 20)) at = USER_SCRATCH;
  userCursor.set(tgid, at + ((len + 15) & ~15));
  us.map(at, Math.max(len, 1));
  if (typeof v === 'string') us.writeBytes(at, v);
  else for (let i = 0; i < v.length; i++) us.writeU8(at + i, v[i]);
  return at;
}

// ---------------------------------------------------------------- per-function builders

function fileOf(t: Task, e: Env): OpenFile | null {
  if (e.file instanceof OpenFile) return e.file;
  const fd = syscallArg(e, 'fd');
  if (typeof fd === 'number') return t.proc.fds[fd] ?? null;
  return null;
}

function syscallArg(e: Env, name: string): unknown {
  if (e.nr < 0 && !e.a.length) return undefined;
  const sc = syscallByName(e.name);
  const args = sc?.args;
  if (!args) return undefined;
  for (let i = 0; i < args.length; i++) if (args[i].name === name) return e.a[i];
  return undefined;
}

const posSlots = new WeakMap<Task, number>();
const msgSlots = new WeakMap<Env, number>();
function posPtr(t: Task, pos: number): number {
  let a = posSlots.get(t);
  if (a === undefined) { a = kmem.alloc(8, 8); posSlots.set(t, a); }
  kmem.writeUnsigned(a, 8, BigInt(Math.max(0, Math.floor(pos))));
  return a;
}

const filenames = new WeakMap<Env, number>();
const perEnv = new WeakMap<Env, number>();
function filenameStruct(e: Env, path: string): number {
  let a = filenames.get(e);
  if (a !== undefined) return a;
  const T = 'struct filename';
  a = kmem.allocStruct(T);
  const s = kmem.strdup(path);
  kmem.setField(a, T, 'name', s);
  kmem.setField(a, T, 'refcnt', 1);
  filenames.set(e, a);
  return a;
}

/** getname()'s struct filename of the environment's path (0: the syscall has none). */
export function filenameAddr(e: Env): number {
  const p = pathOfEnv(e);
  return p === undefined ? 0 : filenameStruct(e, p);
}
setFilenameSource(filenameAddr);

/** The inode an open in progress resolves to (the walk's result), before its OpenFile exists. */
function openingInode(m: Machine, t: Task, e: Env): Inode | undefined {
  if (e.filpFlags === undefined) return undefined;
  const p = pathOfEnv(e);
  return p === undefined ? undefined : m.fs.lookup(p, t.proc.cwd) ?? undefined;
}

/**
 * The struct file of an open in progress (alloc_empty_file's; src/machine/kobjects.ts).  From
 * do_dentry_open on, vfs_open has set f_path; security_file_open and later also see f_inode.
 */
function openingFileArg(m: Machine, t: Task, e: Env, fnName: string): number {
  const a = openingFile(e);
  if (!a || fnName === 'vfs_open') return a;
  const ino = openingInode(m, t, e);
  if (ino) {
    kmem.setField(a, 'struct file', 'f_path.dentry', dentryAddr(kmem, ino));
    kmem.setField(a, 'struct file', 'f_path.mnt', vfsmountOf(kmem, ino));
    if (fnName !== 'do_dentry_open') kmem.setField(a, 'struct file', 'f_inode', kmem.addrOf(ino));
  }
  return a;
}

const pathStructs = new WeakMap<Env, number>();
/** The struct path the walk found (nd->path / file->f_path): its dentry. */
function pathStruct(e: Env, ino: Inode): number {
  let a = pathStructs.get(e);
  if (a === undefined) {
    a = kmem.allocStruct('struct path');
    pathStructs.set(e, a);
  }
  kmem.setField(a, 'struct path', 'dentry', dentryAddr(kmem, ino));
  kmem.setField(a, 'struct path', 'mnt', vfsmountOf(kmem, ino));
  return a;
}

const openFlagsStructs = new WeakMap<Env, number>();
/** build_open_flags()'s struct open_flags for open(2)'s flags and mode. */
function openFlagsStruct(e: Env): number {
  let a = openFlagsStructs.get(e);
  if (a !== undefined) return a;
  const T = 'struct open_flags';
  a = kmem.allocStruct(T);
  const flags = Number(syscallArg(e, 'flags') ?? e.filpFlags ?? 0);
  const mode = Number(syscallArg(e, 'mode') ?? 0);
  // O_CREAT / __O_TMPFILE keep the mode (S_IFREG added), else 0; acc_mode MAY_OPEN | MAY_READ/WRITE
  kmem.setField(a, T, 'open_flag', flags);
  kmem.setField(a, T, 'mode', flags & 0o100 ? (mode & 0o7777) | 0o100000 : 0);
  const acc = (flags & 3) === 0 ? 4 : (flags & 3) === 1 ? 2 : 6;
  kmem.setField(a, T, 'acc_mode', 0x20 | acc | (flags & 0o1000 ? 2 : 0) | (flags & 0o2000 ? 8 : 0));
  kmem.setField(a, T, 'intent', 0x100 | (flags & 0o100 ? 0x200 : 0));
  kmem.setField(a, T, 'lookup_flags', flags & 0o400000 ? 0 : 1);
  openFlagsStructs.set(e, a);
  return a;
}

function structName(type: number): string {
  const r = btfResolve(type);
  const t = btfType(r);
  if (t.kind !== BtfKind.PTR) return '';
  const p = btfType(btfResolve(t.type));
  return p.kind === BtfKind.STRUCT || p.kind === BtfKind.UNION ? p.name : p.kind === BtfKind.INT ? p.name : '';
}

function pathOfEnv(e: Env): string | undefined {
  const v = syscallArg(e, 'filename') ?? syscallArg(e, 'pathname') ?? syscallArg(e, 'path') ?? syscallArg(e, 'specialfile');
  if (typeof v === 'string') return v;
  return typeof e.path === 'string' ? e.path : undefined;
}

function getterFor(fnName: string, pname: string, type: number): Getter {
  const tname = btfTypeName(type);
  const sname = structName(type);
  const isUser = /__user/.test(tname) || (sname === 'char' && /filename|pathname|buf|name/.test(pname) && fnName.startsWith('do_sys'));
  if (fnName.startsWith('__x64_sys_') && pname === 'regs') {
    return (_m, _c, _t, e) => {
      const a = e.a;
      const u = (i: number) => (typeof a[i] === 'string' || a[i] instanceof Uint8Array ? 0 : Number(a[i] ?? 0));
      return { di: u(0), si: u(1), dx: u(2), r10: u(3), r8: u(4), r9: u(5), orig_ax: e.nr, ax: -38 };
    };
  }
  switch (sname) {
    case 'task_struct':
      return (_m, _c, t, e) => (e.p as Task | undefined) ?? (pname === 'prev' || pname === 'curr' || pname === 'current' ? t : (e.childTask as Task | undefined) ?? t);
    case 'file':
      return (m, _c, t, e) => fileOf(t, e) ?? openingFileArg(m, t, e, fnName);
    case 'inode':
      return (m, _c, t, e) => (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode ?? openingInode(m, t, e) ?? 0;
    case 'path':
      return (m, _c, t, e) => {
        const ino = (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode ?? openingInode(m, t, e);
        return ino ? pathStruct(e, ino) : 0;
      };
    case 'open_flags':
      return (_m, _c, _t, e) => (syscallArg(e, 'flags') === undefined ? 0 : openFlagsStruct(e));
    case 'dentry':
      return (_m, _c, t, e) => {
        const ino = (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode;
        return ino ? dentryAddr(kmem, ino) : 0;
      };
    case 'filename':
      return (_m, _c, _t, e) => { const p = pathOfEnv(e); return p === undefined ? 0 : filenameStruct(e, p); };
    case 'kiocb':
      return (_m, _c, t, e) => {
        const f = fileOf(t, e);
        if (!f) return 0;
        let a = perEnv.get(e);
        if (a === undefined) {
          a = kmem.allocStruct('struct kiocb');
          perEnv.set(e, a);
          kmem.setField(a, 'struct kiocb', 'ki_filp', f);
          kmem.setField(a, 'struct kiocb', 'ki_flags', 0);
        }
        kmem.setField(a, 'struct kiocb', 'ki_pos', Number(e.pos ?? f.pos));
        return a;
      };
    case 'open_how':
      return (_m, _c, _t, e) => ({ flags: Number(syscallArg(e, 'flags') ?? 0), mode: Number(syscallArg(e, 'mode') ?? 0) });
    case 'iov_iter':
      return (_m, _c, _t, e) => ({ count: Number(e.count ?? syscallArg(e, 'count') ?? 0), iter_type: 0 });
    case 'mm_struct':
      return (_m, _c, t) => t.proc.mm ?? 0;
    case 'kmem_cache':
      return (_m, _c, _t, e) => ({ name: String(e.cache ?? (e.name === 'openat' ? 'filp' : 'kmalloc-256')), object_size: 256, size: 256 });
    case 'msghdr':
      // sendmsg/recvmsg's message: the data left to copy (msg_iter.count) and msg_flags
      return (_m, _c, _t, e) => {
        let a = msgSlots.get(e);
        if (a === undefined) {
          a = kmem.allocStruct('struct msghdr');
          msgSlots.set(e, a);
        }
        const v = syscallArg(e, 'len') ?? syscallArg(e, 'size') ?? e.count ?? e.len;
        const n = typeof v === 'number' ? v : v instanceof Uint8Array ? v.length : typeof v === 'string' ? v.length : 0;
        kmem.setField(a, 'struct msghdr', 'msg_iter.count', n);
        kmem.setField(a, 'struct msghdr', 'msg_flags', Number(syscallArg(e, 'flags') ?? 0));
        return a;
      };
    case 'socket':
      return (_m, _c, t, e) => {
        const s = (e.sock as Sock | undefined) ?? fileOf(t, e)?.sock;
        return s instanceof Sock ? socketView(s) : 0;
      };
    case 'rq':
      return (_m, c) => ({ cpu: c.id, nr_running: 1 });
    case 'sk_buff':
      // the packet being sent (e.out) before the device path names its skb
      return (_m, _c, _t, e) => (e[pname] ?? e.skb ?? (e.out as { skb?: unknown } | undefined)?.skb ?? 0);
    default: break;
  }
  if (pname === 'buf' || pname === 'ubuf' || isUser) {
    return (_m, _c, t, e) => {
      const v = syscallArg(e, pname);
      if (typeof v === 'string') return userCopy(t.pid, v);
      if (e.buf instanceof Uint8Array) return userCopy(t.pid, (e.buf as Uint8Array).subarray(0, 4096));
      const p = pathOfEnv(e);
      if (p !== undefined && /name|path/.test(pname)) return userCopy(t.pid, p);
      return USER_SCRATCH + 0x10000 + (t.tid & 0xff) * 0x1000;
    };
  }
  if (pname === 'pos' || pname === 'ppos') {
    if (tname.endsWith('*')) return (_m, _c, t, e) => posPtr(t, Number(e.pos ?? syscallArg(e, 'pos') ?? fileOf(t, e)?.pos ?? 0));
    return (_m, _c, t, e) => Number(e.pos ?? syscallArg(e, 'pos') ?? fileOf(t, e)?.pos ?? 0);
  }
  if (pname === 'count' || pname === 'len' || pname === 'size' || pname === 'nbytes') {
    return (_m, _c, _t, e) => Number(e.count ?? syscallArg(e, pname) ?? syscallArg(e, 'count') ?? 0);
  }
  if (pname === 'cpu') return (_m, c) => c.id;
  if (pname === 'gfpflags' || pname === 'gfp_mask' || pname === 'gfp') return () => 0xcc0;
  return (_m, _c, _t, e) => {
    const v = syscallArg(e, pname) ?? e[pname];
    if (typeof v === 'number' || typeof v === 'bigint') return v;
    if (typeof v === 'string') return 0;
    if (v && typeof v === 'object' && !(v instanceof Uint8Array) && tname.endsWith('*')) return v;
    return 0;
  };
}

const builders = new Map<number, ((m: Machine, c: Cpu, t: Task, e: Env) => unknown[]) | null>();

/** The generic argument builder of a kernel function (by kallsyms id), null when it takes none. */
export function genericArgs(fn: number): ((m: Machine, c: Cpu, t: Task, e: Env) => unknown[]) | null {
  let b = builders.get(fn);
  if (b !== undefined) return b;
  installMaterializers();
  const name = symbolName(fn);
  const f = btfFunc(name) ?? btfFunc(name.split('.')[0]);
  if (!f || !f.params.length) b = null;
  else {
    b = argVector(f.params.map((p) => getterFor(name, p.name, p.type)));
  }
  builders.set(fn, b);
  return b;
}

/** The argument vector of a call from one getter per parameter (a getter that throws reads 0). */
function argVector(gs: Getter[]): (m: Machine, c: Cpu, t: Task, e: Env) => unknown[] {
  return (m, c, t, e) => {
    const out = new Array(gs.length);
    for (let i = 0; i < gs.length; i++) {
      try { out[i] = gs[i](m, c, t, e); } catch { out[i] = 0; }
    }
    return out;
  };
}

const inlineBuilders = new Map<InlinedFunction, (m: Machine, c: Cpu, t: Task, e: Env) => unknown[]>();
/**
 * Arguments of an inline instance: its abstract definition's formal parameters (DWARF type
 * names mapped to BTF), built from the path environment by name as for out-of-line functions.
 */
export function inlineArgs(f: InlinedFunction): (m: Machine, c: Cpu, t: Task, e: Env) => unknown[] {
  let b = inlineBuilders.get(f);
  if (b !== undefined) return b;
  installMaterializers();
  b = argVector(f.params.map((p) => getterFor(f.name, p.name, inlineParamBtf(p.dwarfType))));
  inlineBuilders.set(f, b);
  return b;
}
