/**
 * The machine's files as kernel memory lays them out (what `$file->f_path->dentry->d_name->name`
 * reads): `struct file` (f_path.dentry, f_inode, f_op, f_pos, f_flags, f_mode, f_count,
 * private_data), `struct inode` (i_ino, i_mode, i_size, i_nlink, i_uid, i_gid), `struct dentry`
 * (d_name, d_inode, d_parent) and the `struct file_operations` of each kind of file, laid out on
 * first use (materializers registered with paths/args.ts); and the arguments of type `struct
 * file *`, `inode *`, `dentry *`, `path *`, `filename *`, `open_flags *`, `kiocb *`, `open_how *`
 * and `iov_iter *` that probes on the VFS functions read.
 */
import { lookupName, isFunction, symbolAddr } from '../../kernel/kallsyms';
import { kmem, KernelMemory } from '../../kernel/memory';
import { Inode, OpenFile, ConsoleFile, FsType, S_IFMT, pseudoIno } from '../include/fs';
import { socketView } from '../include/net';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { Semantics } from '../paths/semantics';
import { fileOf, syscallArg, pathOfEnv, filenameStruct, registerLazyMaterializer } from '../paths/args';
import { openingFile } from '../paths/kobjects';
import { atDir } from './namei';
import type { FsMachine } from './namei';
import { blockDevice } from '../block/core';

// ---------------------------------------------------------------- materializers

function basename(m: FsMachine | null, ino: Inode): string {
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
  mem.setField(a, T, 'i_sb', superBlock(mem, ino.fs));
  // i_mapping is the inode's own i_data (no bdev inode aliasing for regular files)
  mem.setField(a, T, 'i_mapping', a + mem.fieldOf(T, 'i_data').offset);
  mem.setField(a, T, 'i_data.host', a);
  // ext4 allocates whole 4 KiB blocks; i_blocks counts 512-byte sectors (pseudo filesystems: 0)
  if (ino.fs === 'ext4' && !ino.isChr && !ino.isBlk) mem.setField(a, T, 'i_blocks', Math.ceil(ino.size / 4096) * 8);
  if (ino.rdev) mem.setField(a, T, 'i_rdev', ((ino.rdev >> 8) << 20) | (ino.rdev & 0xff));
  for (const f of ['i_mtime', 'i_atime', 'i_ctime']) {
    const ns = f === 'i_atime' ? ino.atime : ino.mtime;
    mem.setField(a, T, `${f}.tv_sec`, Math.floor(ns / 1e9));
    mem.setField(a, T, `${f}.tv_nsec`, ns % 1e9);
  }
  return a;
}

/**
 * The super_block of each filesystem the machine has, as the real guest's are (recorded with a
 * kprobe event on vfs_read fetching file->f_inode->i_sb->{s_dev,s_id,s_bdev} under
 * ../shared/tools/qemu-debian-guest, and its /proc/self/mountinfo): s_dev is the kernel dev_t
 * (major << 20 | minor), s_id the device name (sda1) or the filesystem's name.
 */
const SUPERS: Record<FsType, { dev: number; id: string; magic: number }> = {
  ext4: { dev: (8 << 20) | 1, id: 'sda1', magic: 0xef53 },
  proc: { dev: 19, id: 'proc', magic: 0x9fa0 },
  sysfs: { dev: 20, id: 'sysfs', magic: 0x62656572 },
  devtmpfs: { dev: 5, id: 'devtmpfs', magic: 0x01021994 },
  tmpfs: { dev: 21, id: 'tmpfs', magic: 0x01021994 },
  pipefs: { dev: 13, id: 'pipefs', magic: 0x50495045 },
  sockfs: { dev: 0, id: 'sockfs', magic: 0x534f434b },
  tracefs: { dev: 12, id: 'tracefs', magic: 0x74726163 },
  debugfs: { dev: 7, id: 'debugfs', magic: 0x64626720 },
  // the guest: stat -L of a timerfd's /proc/self/fd link gives st_dev 14 (ANON_INODE_FS_MAGIC)
  anon_inodefs: { dev: 14, id: 'anon_inodefs', magic: 0x09041934 },
};
/** The filesystem's magic number (s_magic, statfs's f_type). */
export function superMagic(fs: FsType): number {
  return SUPERS[fs].magic;
}
const supers = new Map<FsType, number>();
/** The struct super_block of a filesystem type (one mount each in the machine). */
export function superBlock(mem: KernelMemory, fs: FsType): number {
  const S = 'struct super_block';
  return mem.structFor(supers, fs, S, (a) => {
    const d = SUPERS[fs];
    mem.setField(a, S, 's_dev', d.dev);
    mem.setField(a, S, 's_id', d.id);
    mem.setField(a, S, 's_magic', d.magic);
    mem.setField(a, S, 's_blocksize', 4096);
    mem.setField(a, S, 's_blocksize_bits', 12);
    if (fs === 'ext4') mem.setField(a, S, 's_bdev', blockDevice(mem, 'sda1'));
  });
}

/** d_name of the dentry at `a`: short names live in d_iname, as __d_alloc does, longer ones are allocated */
function setDentryName(mem: KernelMemory, a: number, name: string): void {
  const T = 'struct dentry';
  if (name.length < 32) {
    mem.setField(a, T, 'd_iname', name);
    mem.setField(a, T, 'd_name.name', a + mem.fieldOf(T, 'd_iname').offset);
  } else mem.setField(a, T, 'd_name.name', mem.strdup(name));
  mem.setField(a, T, 'd_name.len', name.length);
}

const dentries = new WeakMap<Inode, number>();
/** The struct dentry of an inode (one per inode: the machine has no hard-link aliases). */
export function dentryAddr(mem: KernelMemory, ino: Inode): number {
  const T = 'struct dentry';
  return mem.structFor(dentries, ino, T, (a) => {
    setDentryName(mem, a, basename(null, ino));
    mem.setField(a, T, 'd_inode', mem.addrOf(ino));
    mem.setField(a, T, 'd_parent', ino.parent && ino.parent !== ino ? dentryAddr(mem, ino.parent) : a);
  });
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
  const M = 'struct mount';
  const m = mem.structFor(mounts, root, M, (m) => {
    const sb = superBlock(mem, 'ext4');
    const d = dentryAddr(mem, root);
    mem.setField(m, M, 'mnt.mnt_root', d);
    mem.setField(m, M, 'mnt.mnt_sb', sb);
    mem.setField(m, M, 'mnt_parent', m);
    mem.setField(m, M, 'mnt_mountpoint', d);
  });
  return m + mem.fieldOf(M, 'mnt').offset;
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
  zero_fops: { llseek: 'noop_llseek', read: 'read_zero', write: 'write_null', read_iter: 'read_iter_zero', write_iter: 'write_iter_null' },
  urandom_fops: { read_iter: 'urandom_read_iter', write_iter: 'random_write_iter', llseek: 'noop_llseek' },
  random_fops: { read_iter: 'random_read_iter', write_iter: 'random_write_iter', llseek: 'noop_llseek' },
  tty_fops: { llseek: 'noop_llseek', read_iter: 'tty_read', write_iter: 'tty_write', open: 'tty_open', release: 'tty_release' },
  timerfd_fops: {
    release: 'timerfd_release', poll: 'timerfd_poll', read: 'timerfd_read', show_fdinfo: 'timerfd_show',
    llseek: 'noop_llseek', unlocked_ioctl: 'timerfd_ioctl',
  },
  def_blk_fops: { open: 'blkdev_open', release: 'blkdev_close', read_iter: 'blkdev_read_iter', write_iter: 'blkdev_write_iter' },
};

function fopsName(ino: Inode): string {
  if (ino.isFifo) return 'pipefifo_fops';
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

/**
 * f_mode as do_dentry_open() and the filesystems' open methods leave it (FMODE_* of 6.1; the
 * values the real guest shows for ext4 files and directories, pipes, devtmpfs devices, sysfs and
 * tmpfs files: 0x484a801d, 0xa801d, 0x2a0001, 0x80a001d, 0xa800d, 0xa801d for reads; 0x80c001e
 * for a write to /dev/null). FMODE_CREATED of an open that created its file is not kept.
 */
function fileMode(f: OpenFile): number {
  const acc = f.flags & 3;
  const rw = (acc === 0 ? 1 : acc === 1 ? 2 : 3);
  const can = (rw & 1 ? 0x20000 : 0) | (rw & 2 ? 0x40000 : 0); // FMODE_CAN_READ / CAN_WRITE
  const OPENED = 0x80000, ATOMIC_POS = 0x8000, STREAM = 0x200000;
  // (a FIFO's too: fifo_open's stream_open clears the FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE do_dentry_open set)
  if (f.kind === 'pipe_r' || f.kind === 'pipe_w') return rw | can | OPENED | STREAM;
  const ino = f.inode;
  if (!ino) return rw | 0x1c | can | OPENED;
  const base = rw | 0x1c | can | OPENED; // FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE
  const writer = rw & 2 && (ino.mode & S_IFMT) === 0o100000 ? 0x10000 : 0; // FMODE_WRITER
  if (ino.isChr || ino.isBlk) return base | 0x8000000; // FMODE_NOWAIT (character devices)
  const regOrDir = ino.isReg || ino.isDir ? ATOMIC_POS : 0;
  if (ino.fs === 'ext4' && ino.isReg) {
    // ext4_file_open: FMODE_NOWAIT | FMODE_BUF_RASYNC | FMODE_CAN_ODIRECT
    return base | writer | regOrDir | 0x8000000 | 0x40000000 | 0x400000;
  }
  // kernfs and procfs files: no FMODE_PWRITE (the guest: 0xa800d for a read of either)
  if (ino.fs === 'sysfs' || ino.fs === 'proc') return (base & ~0x10) | writer | regOrDir;
  return base | writer | regOrDir;
}

/** The struct inode of a pipe (pipefs: S_IFIFO 0600, one per pipe). */
const pipeInodes = new WeakMap<object, number>();
function pipeInode(mem: KernelMemory, key: object): number {
  let a = pipeInodes.get(key);
  if (a !== undefined) return a;
  const T = 'struct inode';
  a = mem.allocStruct(T);
  pipeInodes.set(key, a);
  mem.setField(a, T, 'i_ino', pseudoIno(key));
  mem.setField(a, T, 'i_mode', 0o10600);
  mem.setField(a, T, '__i_nlink', 1);
  mem.setField(a, T, 'i_blkbits', 12);
  mem.setField(a, T, 'i_sb', superBlock(mem, 'pipefs'));
  mem.setField(a, T, 'i_mapping', a + mem.fieldOf(T, 'i_data').offset);
  return a;
}

/**
 * The one inode every anon_inode_getfile file shares (fs/anon_inodes.c anon_inode_inode: mode 0600
 * without a file type; the guest's timerfd and eventpoll files both stat as dev 14, ino 9633).
 */
const anonInodes = new Map<string, number>();
function anonInode(mem: KernelMemory): number {
  const T = 'struct inode';
  return mem.structFor(anonInodes, 'anon_inode', T, (a) => {
    mem.setField(a, T, 'i_mode', 0o600);
    mem.setField(a, T, 'i_ino', 9633);
    mem.setField(a, T, '__i_nlink', 1);
    mem.setField(a, T, 'i_blkbits', 12);
    mem.setField(a, T, 'i_sb', superBlock(mem, 'anon_inodefs'));
    mem.setField(a, T, 'i_mapping', a + mem.fieldOf(T, 'i_data').offset);
  });
}

/**
 * The dentry alloc_file_pseudo gives a file on a pseudo filesystem's internal mount: its own parent, on
 * the file's inode, with the filesystem's d_op (d_dname: an anon file's "[timerfd]" prints as
 * "anon_inode:[timerfd]", a pipe's, unnamed, as "pipe:[INO]", fs/pipe.c create_pipe_files). One per key.
 */
function pseudoDentry<K>(mem: KernelMemory, fs: FsType, memo: { get(k: K): number | undefined; set(k: K, a: number): unknown }, key: K, name: string, inode: number): number {
  const T = 'struct dentry';
  return mem.structFor(memo, key, T, (a) => {
    setDentryName(mem, a, name);
    mem.setField(a, T, 'd_inode', inode);
    mem.setField(a, T, 'd_parent', a);
    mem.setField(a, T, 'd_sb', superBlock(mem, fs));
    mem.setField(a, T, 'd_op', dentryOps(mem, fs));
  });
}
/** anon files: one dentry per kind, on the shared inode */
const anonDentries = new Map<string, number>();
/** pipes: one dentry per pipe */
const pipeDentries = new WeakMap<object, number>();

/** The dentry_operations of the pseudo filesystems whose files name themselves (d_dname). */
const DENTRY_OPS: Partial<Record<FsType, string>> = { pipefs: 'pipefs_dname', sockfs: 'sockfs_dname', anon_inodefs: 'anon_inodefs_dname' };
const dentryOpsAddrs = new Map<FsType, number>();
function dentryOps(mem: KernelMemory, fs: FsType): number {
  const T = 'struct dentry_operations';
  return mem.structFor(dentryOpsAddrs, fs, T, (a) => {
    const id = lookupName(DENTRY_OPS[fs]!).find(isFunction);
    if (id !== undefined) mem.setField(a, T, 'd_dname', symbolAddr(id));
  });
}

/**
 * The internal mount of a pseudo filesystem (kern_mount: pipe_mnt, sock_mnt, anon_inode_mnt), which
 * its files' f_path.mnt names: mnt_sb its super_block, mnt_root its root dentry ("/"), its own parent.
 */
const pseudoMounts = new Map<FsType, number>();
function pseudoMount(mem: KernelMemory, fs: FsType): number {
  const M = 'struct mount';
  const D = 'struct dentry';
  const m = mem.structFor(pseudoMounts, fs, M, (m) => {
    const sb = superBlock(mem, fs);
    const root = mem.allocStruct(D);
    setDentryName(mem, root, '/');
    mem.setField(root, D, 'd_parent', root);
    mem.setField(root, D, 'd_sb', sb);
    mem.setField(m, M, 'mnt.mnt_root', root);
    mem.setField(m, M, 'mnt.mnt_sb', sb);
    mem.setField(m, M, 'mnt_parent', m);
    mem.setField(m, M, 'mnt_mountpoint', root);
  });
  return m + mem.fieldOf(M, 'mnt').offset;
}

/** Lay out the struct file at `a` for the machine's open file `f` (do_dentry_open's result). */
export function fillFile(mem: KernelMemory, a: number, f: OpenFile): void {
  const T = 'struct file';
  // open(2) adds O_LARGEFILE on 64-bit (build_open_flags), O_CLOEXEC goes to the fd table and
  // do_dentry_open drops the creation flags (the guest: `ls /`'s 0x90800 open is f_flags 0x18800,
  // a shell's > redirection 0x8001); pipes and sockets are not opened by name
  // (a FIFO is: its file has the FIFO's inode)
  const opened = (f.inode !== null || (f.kind !== 'pipe_r' && f.kind !== 'pipe_w')) && f.kind !== 'sock';
  mem.setField(a, T, 'f_flags', opened ? (f.flags & ~(O_CREAT_ | O_EXCL_ | O_NOCTTY_ | O_TRUNC_ | O_CLOEXEC_)) | O_LARGEFILE_ : f.flags);
  mem.setField(a, T, 'f_mode', fileMode(f));
  mem.setField(a, T, 'f_pos', f.pos);
  mem.setField(a, T, 'f_count.counter', f.refs);
  const node = f.inode ?? (f instanceof ConsoleFile ? f.terminal : null);
  if (node) {
    const ia = mem.addrOf(node);
    mem.setField(a, T, 'f_inode', ia);
    mem.setField(a, T, 'f_mapping', ia + mem.fieldOf('struct inode', 'i_data').offset);
    mem.setField(a, T, 'f_path.dentry', dentryAddr(mem, node));
    mem.setField(a, T, 'f_path.mnt', vfsmountOf(mem, node));
    mem.setField(a, T, 'f_op', fopsAddr(mem, fopsName(node)));
  } else if (f.pipe) {
    const ia = pipeInode(mem, f.pipe);
    mem.setField(a, T, 'f_inode', ia);
    mem.setField(a, T, 'f_mapping', ia + mem.fieldOf('struct inode', 'i_data').offset);
    mem.setField(a, T, 'f_path.dentry', pseudoDentry(mem, 'pipefs', pipeDentries, f.pipe, '', ia));
    mem.setField(a, T, 'f_path.mnt', pseudoMount(mem, 'pipefs'));
    mem.setField(a, T, 'f_op', fopsAddr(mem, 'pipefifo_fops'));
  } else if (f.anon) {
    const ia = anonInode(mem);
    mem.setField(a, T, 'f_inode', ia);
    mem.setField(a, T, 'f_mapping', ia + mem.fieldOf('struct inode', 'i_data').offset);
    mem.setField(a, T, 'f_path.dentry', pseudoDentry(mem, 'anon_inodefs', anonDentries, f.anon.name, f.anon.name, ia));
    mem.setField(a, T, 'f_path.mnt', pseudoMount(mem, 'anon_inodefs'));
    mem.setField(a, T, 'f_op', fopsAddr(mem, f.anon.fops));
  }
  if (f.sock) mem.setField(a, T, 'private_data', socketView(f.sock));
}
const AT_FDCWD = -100;
const O_CREAT_ = 0o100, O_EXCL_ = 0o200, O_NOCTTY_ = 0o400, O_TRUNC_ = 0o1000, O_LARGEFILE_ = 0o100000, O_CLOEXEC_ = 0o2000000;

/** f_cred: the opener's credentials (the task whose probe first lays the file out). */
function withCred(mem: KernelMemory, a: number, t: Task): number {
  if (!a || mem.readPtr(a + mem.fieldOf('struct file', 'f_cred').offset) !== 0) return a;
  const ta = mem.addrOf(t);
  const cred = mem.readPtr(ta + mem.fieldOf('struct task_struct', 'cred').offset);
  mem.setField(a, 'struct file', 'f_cred', cred);
  return a;
}

// ---------------------------------------------------------------- arguments

/** The inode an open in progress resolves to (the walk's result), before its OpenFile exists. */
function openingInode(m: FsMachine, t: Task, e: Env): Inode | undefined {
  if (e.filpFlags === undefined) return undefined;
  const p = pathOfEnv(e);
  if (p === undefined) return undefined;
  // openat(dfd, relative path): relative to the directory open on dfd (path_init)
  return m.fs.lookup(p, atDir(m, t, syscallArg(e, 'dfd') ?? AT_FDCWD, p)) ?? undefined;
}

/**
 * The struct file of an open in progress (alloc_empty_file's; paths/kobjects.ts).  From
 * do_dentry_open on, vfs_open has set f_path; security_file_open and later also see f_inode.
 */
function openingFileArg(m: FsMachine, t: Task, e: Env, fnName: string): number {
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

const perEnv = new WeakMap<Env, number>();

export const fsLayout = new Semantics<FsMachine>('fs/layout');
fsLayout.setup(() => registerLazyMaterializer((o, mem) => {
  if (o instanceof OpenFile) return fileAddr(mem, o);
  if (o instanceof Inode) return inodeAddr(mem, o);
  return null;
}));
fsLayout.structArg('file', (fnName) => (m, _c, t, e) => {
  const f = fileOf(t, e);
  // (an open in progress: __alloc_file set f_cred when alloc_empty_file made it)
  return withCred(kmem, f ? kmem.addrOf(f) : openingFileArg(m, t, e, fnName), t);
});
fsLayout.structArg('inode', () => (m, _c, t, e) => (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode ?? openingInode(m, t, e) ?? 0);
fsLayout.structArg('path', () => (m, _c, t, e) => {
  const ino = (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode ?? openingInode(m, t, e);
  return ino ? pathStruct(e, ino) : 0;
});
fsLayout.structArg('open_flags', () => (_m, _c, _t, e) => (syscallArg(e, 'flags') === undefined ? 0 : openFlagsStruct(e)));
fsLayout.structArg('dentry', () => (_m, _c, t, e) => {
  const ino = (e.ino as Inode | undefined) ?? fileOf(t, e)?.inode;
  return ino ? dentryAddr(kmem, ino) : 0;
});
fsLayout.structArg('filename', () => (_m, _c, _t, e) => { const p = pathOfEnv(e); return p === undefined ? 0 : filenameStruct(e, p); });
fsLayout.structArg('kiocb', () => (_m, _c, t, e) => {
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
});
fsLayout.structArg('open_how', () => (_m, _c, _t, e) => ({ flags: Number(syscallArg(e, 'flags') ?? 0), mode: Number(syscallArg(e, 'mode') ?? 0) }));
fsLayout.structArg('iov_iter', () => (_m, _c, _t, e) => ({ count: Number(e.count ?? syscallArg(e, 'count') ?? 0), iter_type: 0 }));
