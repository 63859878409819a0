/**
 * Flag and enum decoders of the syscall tapsets with SystemTap 4.8's rules (issue 16): the `_str`
 * variables of stap's syscall aliases (`flags_str`, `advice_str`, `level_str`, `policy_str` ...),
 * declared in stdlib/aux_syscalls.stp and registered with the tapset builtins.
 *
 * stap's aux_syscalls.stp formats a value with two lookups over a table of (value, name):
 *  - `_stp_lookup_str`: the name of the first entry equal to the value, else `0x%lx`;
 *  - `_stp_lookup_or_str`: 0 as the lookup above; else, in the table's order, the name of each
 *    entry sharing a bit with what is left of the value (those bits then cleared), joined by `|`,
 *    and what is left as `0x%lx`.
 * The tables hold the names stap 4.8 lists, in its order, with the values of Linux 6.1 x86_64
 * (include/uapi: asm-generic/mman-common.h, asm-generic/socket.h, linux/resource.h ...).
 */
import type { Builtin } from '../runtime/builtins';
import type { Long } from '../runtime/int64';

/** (value, name) pairs in stap's order. */
export type ValArray = readonly (readonly [number, string])[];

function asLong(v: Long): bigint {
  return BigInt.asIntN(64, typeof v === 'bigint' ? v : BigInt(Math.trunc(v)));
}

/** C's `0x%lx` of a long. */
export function hexLong(v: Long): string {
  return `0x${BigInt.asUintN(64, asLong(v)).toString(16)}`;
}

/** `_stp_lookup_str`: the entry's name, else the value in hex. */
export function lookupStr(table: ValArray, v: Long): string {
  const x = asLong(v);
  for (const [val, name] of table) if (BigInt(val) === x) return name;
  return hexLong(x);
}

/** `_stp_lookup_or_str`: the names of the entries whose bits the value has, then the rest in hex. */
export function lookupOrStr(table: ValArray, v: Long): string {
  let x = asLong(v);
  if (x === 0n) return lookupStr(table, 0);
  const parts: string[] = [];
  for (const [val, name] of table) {
    const b = BigInt(val);
    if (b & x) {
      parts.push(name);
      x &= ~b;
    }
  }
  if (x) parts.push(hexLong(x));
  return parts.join('|');
}

const u32 = (v: Long): number => Number(BigInt.asUintN(32, asLong(v)));
const i32 = (v: Long): number => Number(BigInt.asIntN(32, asLong(v)));

// ---------------------------------------------------------------------------------------------
// the tables

const MREMAP: ValArray = [[1, 'MREMAP_MAYMOVE'], [2, 'MREMAP_FIXED']];
const MADVISE: ValArray = [[0, 'MADV_NORMAL'], [1, 'MADV_RANDOM'], [2, 'MADV_SEQUENTIAL'], [3, 'MADV_WILLNEED'],
  [4, 'MADV_DONTNEED'], [8, 'MADV_FREE'], [9, 'MADV_REMOVE'], [10, 'MADV_DONTFORK'], [11, 'MADV_DOFORK'],
  [100, 'MADV_HWPOISON'], [101, 'MADV_SOFT_OFFLINE'], [12, 'MADV_MERGEABLE'], [13, 'MADV_UNMERGEABLE'],
  [14, 'MADV_HUGEPAGE'], [15, 'MADV_NOHUGEPAGE'], [16, 'MADV_DONTDUMP'], [17, 'MADV_DODUMP']];
const FADVISE: ValArray = [[0, 'POSIX_FADV_NORMAL'], [1, 'POSIX_FADV_RANDOM'], [2, 'POSIX_FADV_SEQUENTIAL'],
  [3, 'POSIX_FADV_WILLNEED'], [4, 'POSIX_FADV_DONTNEED'], [5, 'POSIX_FADV_NOREUSE']];
const MSYNC: ValArray = [[1, 'MS_ASYNC'], [2, 'MS_INVALIDATE'], [4, 'MS_SYNC']];
const MLOCKALL: ValArray = [[1, 'MCL_CURRENT'], [2, 'MCL_FUTURE'], [4, 'MCL_ONFAULT']];
const MLOCK2: ValArray = [[1, 'MLOCK_ONFAULT']];
const SOCK_FLAGS: ValArray = [[0o2000000, 'SOCK_CLOEXEC'], [0o4000, 'SOCK_NONBLOCK']];
const EVENTFD2: ValArray = [[0o4000, 'EFD_NONBLOCK'], [0o2000000, 'EFD_CLOEXEC'], [1, 'EFD_SEMAPHORE']];
/** open(2)'s flags but the access mode (stap's _stp_open_mode_flags_list; O_SYNC is __O_SYNC|O_DSYNC, FASYNC shows as O_ASYNC) */
const OPEN_MODE: ValArray = [[0o100, 'O_CREAT'], [0o200, 'O_EXCL'], [0o400, 'O_NOCTTY'], [0o1000, 'O_TRUNC'],
  [0o2000, 'O_APPEND'], [0o4000, 'O_NONBLOCK'], [0o4010000, 'O_SYNC'], [0o10000, 'O_DSYNC'], [0o20000, 'O_ASYNC'],
  [0o40000, 'O_DIRECT'], [0o100000, 'O_LARGEFILE'], [0o200000, 'O_DIRECTORY'], [0o400000, 'O_NOFOLLOW'],
  [0o1000000, 'O_NOATIME'], [0o2000000, 'O_CLOEXEC'], [0o10000000, 'O_PATH']];
const EPOLL_OP: ValArray = [[1, 'EPOLL_CTL_ADD'], [3, 'EPOLL_CTL_MOD'], [2, 'EPOLL_CTL_DEL']];
const RLIMIT: ValArray = [[0xffffffff, 'RLIM_INFINITY'], [0, 'RLIMIT_CPU'], [1, 'RLIMIT_FSIZE'], [2, 'RLIMIT_DATA'],
  [3, 'RLIMIT_STACK'], [4, 'RLIMIT_CORE'], [5, 'RLIMIT_RSS'], [6, 'RLIMIT_NPROC'], [7, 'RLIMIT_NOFILE'],
  [8, 'RLIMIT_MEMLOCK'], [9, 'RLIMIT_AS'], [10, 'RLIMIT_LOCKS'], [11, 'RLIMIT_SIGPENDING'], [12, 'RLIMIT_MSGQUEUE'],
  [13, 'RLIMIT_NICE'], [14, 'RLIMIT_RTPRIO'], [15, 'RLIMIT_RTTIME'], [16, 'RLIM_NLIMITS']];
const RUSAGE_WHO: ValArray = [[0, 'RUSAGE_SELF'], [0xffffffff, 'RUSAGE_CHILDREN'], [0xfffffffe, 'RUSAGE_BOTH'], [1, 'RUSAGE_THREAD']];
const SCHED_POLICY: ValArray = [[0, 'SCHED_OTHER'], [1, 'SCHED_FIFO'], [2, 'SCHED_RR'], [3, 'SCHED_BATCH'],
  [5, 'SCHED_IDLE'], [6, 'SCHED_DEADLINE']];
const SCHED_RESET_ON_FORK = 0x40000000;
const NANOSLEEP_FLAGS: ValArray = [[1, 'TIMER_ABSTIME']];
const SHUTDOWN_HOW: ValArray = [[0, 'SHUT_RD'], [1, 'SHUT_WR'], [2, 'SHUT_RDWR']];
const PRIO_WHICH: ValArray = [[0, 'PRIO_PROCESS'], [1, 'PRIO_PGRP'], [2, 'PRIO_USER']];
const SOL: ValArray = [[0, 'SOL_IP'], [1, 'SOL_SOCKET'], [6, 'SOL_TCP'], [17, 'SOL_UDP'], [41, 'SOL_IPV6'],
  [58, 'SOL_ICMPV6'], [132, 'SOL_SCTP'], [136, 'SOL_UDPLITE'], [255, 'SOL_RAW'], [256, 'SOL_IPX'], [257, 'SOL_AX25'],
  [258, 'SOL_ATALK'], [259, 'SOL_NETROM'], [260, 'SOL_ROSE'], [261, 'SOL_DECNET'], [262, 'SOL_X25'],
  [263, 'SOL_PACKET'], [264, 'SOL_ATM'], [265, 'SOL_AAL'], [266, 'SOL_IRDA'], [267, 'SOL_NETBEUI'], [268, 'SOL_LLC'],
  [269, 'SOL_DCCP'], [270, 'SOL_NETLINK'], [271, 'SOL_TIPC'], [272, 'SOL_RXRPC'], [273, 'SOL_PPPOL2TP'],
  [274, 'SOL_BLUETOOTH'], [275, 'SOL_PNPIPE'], [276, 'SOL_RDS'], [277, 'SOL_IUCV'], [278, 'SOL_CAIF'],
  [279, 'SOL_ALG'], [280, 'SOL_NFC']];
/**
 * The SOL_SOCKET option names, whatever the level (stap 4.8 decodes every level's options with
 * this list); the kernel's SO_RCVTIMEO, SO_SNDTIMEO, SO_TIMESTAMP* are the _OLD values on 64-bit.
 */
const SO: ValArray = [[1, 'SO_DEBUG'], [2, 'SO_REUSEADDR'], [3, 'SO_TYPE'], [4, 'SO_ERROR'], [5, 'SO_DONTROUTE'],
  [6, 'SO_BROADCAST'], [7, 'SO_SNDBUF'], [8, 'SO_RCVBUF'], [32, 'SO_SNDBUFFORCE'], [33, 'SO_RCVBUFFORCE'],
  [9, 'SO_KEEPALIVE'], [10, 'SO_OOBINLINE'], [11, 'SO_NO_CHECK'], [12, 'SO_PRIORITY'], [13, 'SO_LINGER'],
  [14, 'SO_BSDCOMPAT'], [15, 'SO_REUSEPORT'], [16, 'SO_PASSCRED'], [17, 'SO_PEERCRED'], [18, 'SO_RCVLOWAT'],
  [19, 'SO_SNDLOWAT'], [20, 'SO_RCVTIMEO'], [21, 'SO_SNDTIMEO'], [22, 'SO_SECURITY_AUTHENTICATION'],
  [23, 'SO_SECURITY_ENCRYPTION_TRANSPORT'], [24, 'SO_SECURITY_ENCRYPTION_NETWORK'], [25, 'SO_BINDTODEVICE'],
  [26, 'SO_ATTACH_FILTER'], [27, 'SO_DETACH_FILTER'], [28, 'SO_PEERNAME'], [29, 'SO_TIMESTAMP'],
  [30, 'SO_ACCEPTCONN'], [31, 'SO_PEERSEC'], [34, 'SO_PASSSEC'], [35, 'SO_TIMESTAMPNS'], [36, 'SO_MARK'],
  [37, 'SO_TIMESTAMPING'], [38, 'SO_PROTOCOL'], [39, 'SO_DOMAIN'], [40, 'SO_RXQ_OVFL'], [41, 'SO_WIFI_STATUS'],
  [42, 'SO_PEEK_OFF'], [43, 'SO_NOFCS'], [44, 'SO_LOCK_FILTER'], [45, 'SO_SELECT_ERR_QUEUE'], [46, 'SO_BUSY_POLL'],
  [47, 'SO_MAX_PACING_RATE'], [48, 'SO_BPF_EXTENSIONS'], [49, 'SO_INCOMING_CPU'], [50, 'SO_ATTACH_BPF'],
  [51, 'SO_ATTACH_REUSEPORT_CBPF'], [52, 'SO_ATTACH_REUSEPORT_EBPF'], [53, 'SO_CNX_ADVICE'],
  [54, 'SCM_TIMESTAMPING_OPT_STATS'], [55, 'SO_MEMINFO'], [56, 'SO_INCOMING_NAPI_ID'], [57, 'SO_COOKIE'],
  [58, 'SCM_TIMESTAMPING_PKTINFO'], [59, 'SO_PEERGROUPS'], [60, 'SO_ZEROCOPY'], [61, 'SO_TXTIME'],
  [62, 'SO_BINDTOIFINDEX'], [63, 'SO_TIMESTAMP_NEW'], [64, 'SO_TIMESTAMPNS_NEW'], [65, 'SO_TIMESTAMPING_NEW'],
  [66, 'SO_RCVTIMEO_NEW'], [67, 'SO_SNDTIMEO_NEW']];

const ITIMER_WHICH: ValArray = [[0, 'ITIMER_REAL'], [1, 'ITIMER_VIRTUAL'], [2, 'ITIMER_PROF']];
const WAITID_WHICH: ValArray = [[0, 'P_ALL'], [1, 'P_PID'], [2, 'P_PGID']];
const INOTIFY_MASK: ValArray = [[0x1, 'IN_ACCESS'], [0x2, 'IN_MODIFY'], [0x4, 'IN_ATTRIB'], [0x8, 'IN_CLOSE_WRITE'],
  [0x10, 'IN_CLOSE_NOWRITE'], [0x20, 'IN_OPEN'], [0x40, 'IN_MOVED_FROM'], [0x80, 'IN_MOVED_TO'], [0x100, 'IN_CREATE'],
  [0x200, 'IN_DELETE'], [0x400, 'IN_DELETE_SELF'], [0x800, 'IN_MOVE_SELF'], [0x2000, 'IN_UNMOUNT'],
  [0x4000, 'IN_Q_OVERFLOW'], [0x8000, 'IN_IGNORED'], [0x01000000, 'IN_ONLYDIR'], [0x02000000, 'IN_DONT_FOLLOW'],
  [0x04000000, 'IN_EXCL_UNLINK'], [0x20000000, 'IN_MASK_ADD'], [0x40000000, 'IN_ISDIR'], [0x80000000, 'IN_ONESHOT']];
const TIMERFD: ValArray = [[1, 'TFD_TIMER_ABSTIME'], [2, 'TFD_TIMER_CANCEL_ON_SET'], [0o2000000, 'TFD_CLOEXEC'], [0o4000, 'TFD_NONBLOCK']];
const SPLICE: ValArray = [[1, 'SPLICE_F_MOVE'], [2, 'SPLICE_F_NONBLOCK'], [4, 'SPLICE_F_MORE'], [8, 'SPLICE_F_GIFT']];
const FALLOC: ValArray = [[1, 'FALLOC_FL_KEEP_SIZE'], [2, 'FALLOC_FL_PUNCH_HOLE'], [4, 'FALLOC_FL_NO_HIDE_STALE'],
  [8, 'FALLOC_FL_COLLAPSE_RANGE'], [0x10, 'FALLOC_FL_ZERO_RANGE']];
const SYNC_FILE_RANGE: ValArray = [[1, 'SYNC_FILE_RANGE_WAIT_BEFORE'], [2, 'SYNC_FILE_RANGE_WRITE'], [4, 'SYNC_FILE_RANGE_WAIT_AFTER']];
const RENAMEAT2: ValArray = [[1, 'RENAME_NOREPLACE'], [2, 'RENAME_EXCHANGE'], [4, 'RENAME_WHITEOUT']];
const USERFAULTFD: ValArray = [[0o4000, 'O_NONBLOCK'], [0o2000000, 'O_CLOEXEC']];
const MEMBARRIER_CMD: ValArray = [[0, 'MEMBARRIER_CMD_QUERY'], [1, 'MEMBARRIER_CMD_SHARED']];
const KCMP_TYPE: ValArray = [[0, 'KCMP_FILE'], [1, 'KCMP_VM'], [2, 'KCMP_FILES'], [3, 'KCMP_FS'], [4, 'KCMP_SIGHAND'],
  [5, 'KCMP_IO'], [6, 'KCMP_SYSVSEM'], [8, 'KCMP_TYPES']];
const SHMAT: ValArray = [[0o10000, 'SHM_RDONLY'], [0o20000, 'SHM_RND'], [0o40000, 'SHM_REMAP'], [0o100000, 'SHM_EXEC']];
const SHMGET: ValArray = [[0o1000, 'IPC_CREAT'], [0o2000, 'IPC_EXCL'], [0o4000, 'SHM_HUGETLB'], [0o10000, 'SHM_NORESERVE']];
const SEMCTL_CMD: ValArray = [[3, 'IPC_INFO'], [19, 'SEM_INFO'], [18, 'SEM_STAT'], [13, 'GETALL'], [12, 'GETVAL'],
  [11, 'GETPID'], [14, 'GETNCNT'], [15, 'GETZCNT'], [2, 'IPC_STAT'], [16, 'SETVAL'], [17, 'SETALL'], [0, 'IPC_RMID'], [1, 'IPC_SET']];
const MSGCTL_CMD: ValArray = [[3, 'IPC_INFO'], [2, 'IPC_STAT'], [0, 'IPC_RMID'], [1, 'IPC_SET'], [12, 'MSG_INFO'], [11, 'MSG_STAT']];
const MSGFLG: ValArray = [[0o10000, 'MSG_NOERROR'], [0o20000, 'MSG_EXCEPT'], [0o4000, 'IPC_NOWAIT']];
const IPC_64 = 0x100;
const IOPRIO_WHO: ValArray = [[1, 'IOPRIO_WHO_PROCESS'], [2, 'IOPRIO_WHO_PGRP'], [3, 'IOPRIO_WHO_USER']];
const IOPRIO_CLASS: ValArray = [[0, 'IOPRIO_CLASS_NONE'], [1, 'IOPRIO_CLASS_RT'], [2, 'IOPRIO_CLASS_BE'], [3, 'IOPRIO_CLASS_IDLE']];
const STATX_SYNC: ValArray = [[0x6000, 'AT_STATX_SYNC_TYPE'], [0, 'AT_STATX_SYNC_AS_STAT'], [0x2000, 'AT_STATX_FORCE_SYNC'], [0x4000, 'AT_STATX_DONT_SYNC']];
const PKEY_INIT: ValArray = [[1, 'PKEY_DISABLE_ACCESS'], [2, 'PKEY_DISABLE_WRITE']];
const SWAP_FLAG_PREFER = 0x8000;
const SWAP_FLAG_PRIO_MASK = 0x7fff;
const SWAPON: ValArray = [[SWAP_FLAG_PREFER, 'SWAP_FLAG_PREFER'], [0x10000, 'SWAP_FLAG_DISCARD'], [0x20000, 'SWAP_FLAG_DISCARD_ONCE'], [0x40000, 'SWAP_FLAG_DISCARD_PAGES']];
/** socket(2)'s protocols of PF_INET / PF_INET6 (others: the number) */
const IPPROTO: Record<number, string> = { 0: 'IPPROTO_IP', 1: 'IPPROTO_ICMP', 2: 'IPPROTO_IGMP', 4: 'IPPROTO_IPIP',
  6: 'IPPROTO_TCP', 8: 'IPPROTO_EGP', 12: 'IPPROTO_PUP', 17: 'IPPROTO_UDP', 22: 'IPPROTO_IDP', 29: 'IPPROTO_TP',
  33: 'IPPROTO_DCCP', 41: 'IPPROTO_IPV6', 46: 'IPPROTO_RSVP', 47: 'IPPROTO_GRE', 50: 'IPPROTO_ESP', 51: 'IPPROTO_AH',
  92: 'IPPROTO_MTP', 98: 'IPPROTO_ENCAP', 103: 'IPPROTO_PIM', 108: 'IPPROTO_COMP', 132: 'IPPROTO_SCTP',
  136: 'IPPROTO_UDPLITE', 255: 'IPPROTO_RAW' };

/** `%#o` of C: 0 alone, else a leading 0. */
function octal(v: number): string {
  return v ? `0${v.toString(8)}` : '0';
}

/** mknod(2)'s mode: the file type's name and the permission bits in octal (stap's _mknod_mode_str). */
function mknodMode(m: number): string {
  const type = m & 0o170000;
  const perm = m & ~0o170000;
  const names: Record<number, string> = { 0o100000: 'S_IFREG', 0o20000: 'S_IFCHR', 0o60000: 'S_IFBLK', 0o10000: 'S_IFIFO', 0o140000: 'S_IFSOCK' };
  return names[type] ? `${names[type]}|${octal(perm)}` : octal(m);
}

/** sched_setscheduler(2)'s policy: SCHED_RESET_ON_FORK| before the policy's name. */
function schedPolicy(v: Long): string {
  const signed = i32(v);
  let p = u32(v);
  let pre = '';
  if (signed > 0 && p & SCHED_RESET_ON_FORK) {
    pre = 'SCHED_RESET_ON_FORK|';
    p &= ~SCHED_RESET_ON_FORK;
  }
  return pre + lookupStr(SCHED_POLICY, p);
}

/** shmget(2)'s flags: the IPC_/SHM_ flags, then the permission bits in octal. */
function shmgetFlags(v: Long): string {
  const f = u32(v);
  const s = lookupOrStr(SHMGET, f & ~0o777);
  return f & 0o777 ? `${s}|${octal(f & 0o777)}` : s;
}

/** semctl/shmctl and msgctl commands: IPC_64| before the command's name. */
function ipcCmd(table: ValArray, v: Long): string {
  const cmd = u32(v);
  return cmd & IPC_64 ? `IPC_64|${lookupStr(table, cmd & ~IPC_64)}` : lookupStr(table, cmd);
}

/** semget/msgget flags (stap's __sem_flags): IPC_CREAT, IPC_EXCL, other bits in hex, then the mode in octal. */
function semFlags(v: Long): string {
  let f = asLong(v);
  const mode = Number(f & 0o777n);
  f &= ~0o777n;
  const parts: string[] = [];
  for (const [bit, name] of [[0o1000n, 'IPC_CREAT'], [0o2000n, 'IPC_EXCL']] as const) {
    if (f & bit) { parts.push(name); f &= ~bit; }
  }
  if (f) parts.push(hexLong(f));
  if (mode) parts.push(octal(mode));
  return parts.join('|');
}

/** The decoders by their tapset names; the argument is cast as stap's C does (unsigned int, uint32_t or long). */
export const auxSyscallBuiltins: Record<string, Builtin> = {
  _mremap_flags: (c, f: Long) => lookupOrStr(MREMAP, u32(f)),
  _madvice_advice_str: (c, a: Long) => lookupStr(MADVISE, u32(a)),
  _fadvice_advice_str: (c, a: Long) => lookupStr(FADVISE, u32(a)),
  _msync_flag_str: (c, f: Long) => lookupOrStr(MSYNC, u32(f)),
  _mlockall_flags_str: (c, f: Long) => lookupOrStr(MLOCKALL, u32(f)),
  _stp_mlock2_str: (c, f: Long) => lookupOrStr(MLOCK2, u32(f)),
  _sock_flags_str: (c, f: Long) => lookupOrStr(SOCK_FLAGS, u32(f)),
  _eventfd2_flag_str: (c, f: Long) => lookupOrStr(EVENTFD2, u32(f)),
  _dup3_flag_str: (c, f: Long) => lookupOrStr(OPEN_MODE, u32(f)),
  _opoll_op_str: (c, o: Long) => lookupStr(EPOLL_OP, u32(o)),
  _rlimit_resource_str: (c, r: Long) => lookupStr(RLIMIT, u32(r)),
  _rusage_who_str: (c, w: Long) => lookupStr(RUSAGE_WHO, u32(w)),
  _sched_policy_str: (c, p: Long) => schedPolicy(p),
  _mknod_mode_str: (c, m: Long) => mknodMode(Number(asLong(m) & 0xffffffffn)),
  _stp_clock_nanosleep_flags_str: (c, f: Long) => lookupStr(NANOSLEEP_FLAGS, u32(f)),
  _shutdown_how_str: (c, h: Long) => lookupStr(SHUTDOWN_HOW, u32(h)),
  _priority_which_str: (c, w: Long) => lookupStr(PRIO_WHICH, u32(w)),
  _sockopt_level_str: (c, l: Long) => lookupStr(SOL, l),
  _sockopt_optname_str: (c, o: Long) => lookupStr(SO, o),
  _itimer_which_str: (c, w: Long) => lookupStr(ITIMER_WHICH, u32(w)),
  _waitid_which_str: (c, w: Long) => lookupStr(WAITID_WHICH, u32(w)),
  _inotify_watch_mask_str: (c, m: Long) => lookupOrStr(INOTIFY_MASK, u32(m)),
  _stp_timerfd_flags_str: (c, f: Long) => lookupOrStr(TIMERFD, u32(f)),
  _stp_splice_flags_str: (c, f: Long) => lookupOrStr(SPLICE, u32(f)),
  _stp_fallocate_mode_str: (c, m: Long) => lookupOrStr(FALLOC, u32(m)),
  _sync_file_range_flags_str: (c, f: Long) => lookupOrStr(SYNC_FILE_RANGE, u32(f)),
  _renameat2_flags_str: (c, f: Long) => lookupOrStr(RENAMEAT2, u32(f)),
  _userfaultfd_flags_str: (c, f: Long) => lookupOrStr(USERFAULTFD, u32(f)),
  _membarrier_cmd_str: (c, m: Long) => lookupStr(MEMBARRIER_CMD, u32(m)),
  _kcmp_type_str: (c, t: Long) => lookupStr(KCMP_TYPE, u32(t)),
  _shmat_flags_str: (c, f: Long) => lookupOrStr(SHMAT, f),
  _stp_shmget_flags_str: (c, f: Long) => shmgetFlags(f),
  _semctl_cmd: (c, v: Long) => ipcCmd(SEMCTL_CMD, v),
  _stp_msgctl_cmd_str: (c, v: Long) => ipcCmd(MSGCTL_CMD, v),
  _stp_msgflg_str: (c, f: Long) => lookupOrStr(MSGFLG, u32(f)),
  __sem_flags: (c, f: Long) => semFlags(f),
  _stp_msgget_key_str: (c, k: Long) => (asLong(k) === 0n ? 'IPC_PRIVATE' : String(asLong(k))),
  _stp_ioprio_which_str: (c, w: Long) => {
    const n = i32(w);
    return IOPRIO_WHO.find(([v]) => v === n)?.[1] ?? String(n);
  },
  _stp_ioprio_value_str: (c, v: Long) => `${lookupStr(IOPRIO_CLASS, (u32(v) >>> 13) & 7)}|${i32(v) & 0x1fff}`,
  /** statx's mask looked up in stap's list of AT_STATX_* sync flags (as stap 4.8 does: 0x7ff for STATX_BASIC_STATS) */
  _statx_mask_str: (c, m: Long) => lookupStr(STATX_SYNC, i32(m)),
  _pkey_alloc_init_val_str: (c, v: Long) => lookupOrStr(PKEY_INIT, u32(v)),
  _swapon_flags_str: (c, f: Long) => {
    const s = lookupOrStr(SWAPON, u32(f) & ~SWAP_FLAG_PRIO_MASK);
    return u32(f) & SWAP_FLAG_PREFER ? `${s}|${u32(f) & SWAP_FLAG_PRIO_MASK}` : s;
  },
  _sock_protocol_str: (c, family: Long, protocol: Long) => {
    const fam = Number(asLong(family));
    const p = Number(asLong(protocol));
    return ((fam === 2 || fam === 10) && IPPROTO[p]) || String(p);
  },
};
