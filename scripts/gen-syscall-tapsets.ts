/**
 * Generates the syscall tapsets, in SystemTap 4.8's flavours and with its probe points:
 *
 *   stdlib/syscalls.stp     syscall.NAME (= dw_syscall.NAME !, nd_syscall.NAME) and
 *                           dw_syscall.NAME (kernel.function("sys_NAME"): $parameters)
 *   stdlib/nd_syscalls.stp  nd_syscall.NAME (= nd1 !, nd2 !, tp), nd1_syscall.NAME
 *                           (kprobe.function("sys_NAME")), nd2_syscall.NAME (kprobes on the
 *                           4.17+ wrappers __ia32_sys_NAME / __x64_sys_NAME) and tp_syscall.NAME
 *                           (kernel.trace("sys_enter") gated by the syscall number)
 *
 *   npx tsc -p . && node dist/scripts/gen-syscall-tapsets.js
 *
 * Which kernel functions each alias probes, and stap's `?`/`!` between them, come from
 * data/tapset-names/syscall-points.txt.gz (stap -v --dump-probe-aliases of Debian's 4.8, names only;
 * scripts/tapset-names/syscalls.py); `__{ia32,x64}_` brace patterns are expanded to the symbols the
 * simulated kernel has.  On Debian's 6.1 the DWARF and nd1 flavours find no `sys_NAME` function
 * (6.1 defines __x64_sys_NAME, __se_sys_NAME, __do_sys_NAME), so syscall.NAME is nd2_syscall.NAME,
 * as real 4.8 resolves it there.  The bodies are written here: the arguments by their
 * SYSCALL_DEFINE names (src/kernel/syscalls.ts; ia32/compat-only ones from
 * data/tapset-names/syscall-defs.tsv) read with the `__sc_*` functions of stdlib/aux_syscalls.stp
 * (or as $parameters in the DWARF flavour), `argstr` formatted the way stap's syscall tapsets do:
 * fds and signed values `%d`, sizes `%u`, user pointers `%p`, path strings quoted, flags and enums
 * through the aux_syscalls formatters.  The variables are then named as stap 4.8 names them
 * (scripts/syscall-var-names.ts, from data/tapset-names/stap-4.8-syscall-vars.txt: regenerate that
 * list with `python3 scripts/tapset-names/alias_vars.py --syscalls --out FILE` first).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { syscalls, Syscall } from '../src/kernel/syscalls';
import { lookupName, isFunction } from '../src/kernel/kallsyms';
import { Var, readSyscallVars, conformVars } from './syscall-var-names';

/** stap's alias names where they differ from syscall_64.tbl's. */
const ALIAS_NAME: Record<string, string> = { pread64: 'pread', pwrite64: 'pwrite' };

/** stap's variable names where they differ from the SYSCALL_DEFINE parameter names. */
const RENAME: Record<string, Record<string, string>> = {
  pread64: { pos: 'offset' },
  pwrite64: { pos: 'offset' },
  mmap: { addr: 'start', off: 'offset' },
  munmap: { addr: 'start', len: 'length' },
  mprotect: { start: 'addr' },
  exit: { error_code: 'status' },
  exit_group: { error_code: 'status' },
  lseek: { fd: 'fildes' },
  wait4: { upid: 'pid', stat_addr: 'status', ru: 'rusage' },
  execve: { argv: 'args', envp: 'env' },
  clone: { newsp: 'stack_start', parent_tidptr: 'parent_tid', child_tidptr: 'child_tid' },
  dup2: {},
  kill: {},
  rt_sigaction: { act: 'act', oact: 'oact' },
  nanosleep: { rqtp: 'req', rmtp: 'rem' },
  clock_nanosleep: { which_clock: 'which_clock', rqtp: 'req', rmtp: 'rem' },
  sendto: { fd: 's', buff: 'buf', addr: 'to', addr_len: 'tolen' },
  recvfrom: { fd: 's', ubuf: 'buf', addr: 'addr', addr_len: 'addrlen' },
  sendmsg: { fd: 's' },
  recvmsg: { fd: 's' },
  sendmmsg: { fd: 's' },
  recvmmsg: { fd: 's' },
  futex: { uaddr: 'futex', val: 'val', utime: 'utime' },
  ioctl: { cmd: 'request', arg: 'argp' },
  mremap: { addr: 'old_address', old_len: 'old_size', new_len: 'new_size', new_addr: 'new_address' },
};

/**
 * stap 4.8's decoder of an argument (by syscall and SYSCALL_DEFINE name), which argstr shows in
 * the value's place: a flag/enum formatter of the value, or a user struct's (`@`: its address;
 * `{...}`: argstr shows it in braces). src/probes/aux_syscalls.ts and aux_syscalls_user.ts.
 */
const SOCKOPT = { level: '_sockopt_level_str', optname: '_sockopt_optname_str' };
const DECODE: Record<string, Record<string, string>> = {
  accept4: { flags: '_sock_flags_str' },
  clock_nanosleep: { flags: '_stp_clock_nanosleep_flags_str', rqtp: '_struct_timespec_u(@, 1)' },
  nanosleep: { rqtp: '_struct_timespec_u(@, 1)' },
  dup3: { flags: '_dup3_flag_str' },
  eventfd: { flags: '_eventfd2_flag_str' },
  eventfd2: { flags: '_eventfd2_flag_str' },
  mremap: { flags: '_mremap_flags' },
  msync: { flags: '_msync_flag_str' },
  mlockall: { flags: '_mlockall_flags_str' },
  mlock2: { flags: '_stp_mlock2_str' },
  madvise: { behavior: '_madvice_advice_str' },
  fadvise64: { advice: '_fadvice_advice_str' },
  fadvise64_64: { advice: '_fadvice_advice_str' },
  getsockopt: SOCKOPT,
  setsockopt: SOCKOPT,
  prlimit64: { resource: '_rlimit_resource_str', new_rlim: '_struct_rlimit_u(@)' },
  setrlimit: { resource: '_rlimit_resource_str', rlim: '_struct_rlimit_u(@)' },
  sched_setscheduler: { policy: '_sched_policy_str' },
  sched_get_priority_max: { policy: '_sched_policy_str' },
  sched_get_priority_min: { policy: '_sched_policy_str' },
  mknod: { mode: '_mknod_mode_str' },
  mknodat: { mode: '_mknod_mode_str' },
  epoll_ctl: { op: '_opoll_op_str' },
  getrusage: { who: '_rusage_who_str' },
  rt_sigaction: { act: '{_struct_sigaction_u(@)}' },
  rt_sigprocmask: { nset: '_stp_sigset_u(@)' },
  rt_sigsuspend: { unewset: '_stp_sigset_u(@)' },
  shutdown: { how: '_shutdown_how_str' },
  setpriority: { which: '_priority_which_str' },
  setitimer: { which: '_itimer_which_str', value: '_struct_itimerval_u(@)' },
  waitid: { which: '_waitid_which_str' },
  socket: { protocol: '_sock_protocol_str(family, @)' },
  socketpair: { protocol: '_sock_protocol_str(family, @)' },
  timerfd_create: { flags: '_stp_timerfd_flags_str' },
  renameat2: { flags: '_renameat2_flags_str' },
  fallocate: { mode: '_stp_fallocate_mode_str' },
  inotify_add_watch: { mask: '_inotify_watch_mask_str' },
  splice: { flags: '_stp_splice_flags_str' },
  sync_file_range: { flags: '_sync_file_range_flags_str' },
  userfaultfd: { flags: '_userfaultfd_flags_str' },
  membarrier: { cmd: '_membarrier_cmd_str' },
  kcmp: { type: '_kcmp_type_str' },
  shmat: { shmflg: '_shmat_flags_str' },
  shmget: { shmflg: '_stp_shmget_flags_str' },
  select: { tvp: '_struct_timeval_u(@, 1)' },
  ppoll: { tsp: '_struct_timespec_u(@, 1)' },
  clock_settime: { tp: '_struct_timespec_u(@, 1)' },
  shmctl: { cmd: '_semctl_cmd' },
  semctl: { cmd: '_semctl_cmd' },
  msgctl: { cmd: '_stp_msgctl_cmd_str' },
  semget: { key: '_stp_msgget_key_str', semflg: '__sem_flags' },
  msgget: { key: '_stp_msgget_key_str', msgflg: '__sem_flags' },
  msgsnd: { msgflg: '_stp_msgflg_str' },
  msgrcv: { msgflg: '_stp_msgflg_str' },
  semtimedop: { timeout: '_struct_timespec_u(@, 1)' },
  ioprio_get: { which: '_stp_ioprio_which_str' },
  ioprio_set: { which: '_stp_ioprio_which_str', ioprio: '_stp_ioprio_value_str' },
  statx: { mask: '_statx_mask_str' },
  pkey_alloc: { init_val: '_pkey_alloc_init_val_str' },
  swapon: { swap_flags: '_swapon_flags_str' },
  settimeofday: { tv: '_struct_timeval_u(@, 1)', tz: '_struct_timezone_u(@)' },
  utimes: { utimes: '_struct_timeval_u(@, 2)' },
  futimesat: { utimes: '_struct_timeval_u(@, 2)' },
  recvmmsg: { timeout: '_struct_timespec_u(@, 1)' },
};

/** argstr's format of an argument where stap 4.8's differs from the generic one (by SYSCALL_DEFINE name). */
const ARGFMT: Record<string, Record<string, string>> = {
  mremap: { addr: '%p', old_len: '%d', new_len: '%d', new_addr: '%p' },
  msync: { start: '%p' },
  madvise: { start: '%p' },
  mlock2: { start: '%p' },
  fadvise64: { len: '%d' },
  fallocate: { offset: '%#x', len: '%u' },
  ppoll: { sigsetsize: '%d' },
  sync_file_range: { nbytes: '%d' },
  membarrier: { flags: '%d' },
  semctl: { arg: '%p' },
};

const STRING_ARGS = new Set(['filename', 'pathname', 'path', 'oldname', 'newname', 'specialfile', 'library', 'dev_name',
  'dir_name', 'oldpath', 'newpath', 'linkpath', 'target', 'old', 'new', 'name_uaddr', 'uservaddr_str',
  'new_root', 'put_old', 'special', '_type', '_description', 'u_name']);
const SIGNED = /^(int|long|long long|pid_t|off_t|loff_t|key_t|clockid_t|timer_t|mqd_t|qid_t|__s32|s32|__s64|s64)$/;
const INT32 = /^(int|pid_t|key_t|clockid_t|timer_t|mqd_t|__s32|s32)$/;
const UINT32 = /^(unsigned int|unsigned|umode_t|uid_t|gid_t|u32|__u32|qid_t|rwf_t|old_uid_t|old_gid_t)$/;

function isString(sc: Syscall, a: { type: string; name: string }): boolean {
  return /char \*$/.test(a.type) && !/\*\s*const \*$/.test(a.type) && (STRING_ARGS.has(a.name) ||
    ((sc.name === 'mount' || sc.name === 'umount2') && /name|type/.test(a.name)) ||
    (/xattr$|^set(host|domain)name$|^acct$/.test(sc.name) && a.name === 'name'));
}

/** How an argument of type t is read: a 32-bit int sign- or zero-extended, else the register. */
function readArg(t: string, i: number, isPtr: boolean): string {
  return isPtr ? `__sc_arg(${i})` : INT32.test(t) ? `__sc_argi32(${i})` : UINT32.test(t) ? `__sc_argu32(${i})` : `__sc_arg(${i})`;
}

function argVars(sc: Syscall): { vars: Var[]; argstr: string } {
  const args = sc.args ?? [];
  const ren = RENAME[sc.name] ?? {};
  const vars: Var[] = [];
  const late: Var[] = [];
  const shown: string[] = [];
  const fmts: string[] = [];
  const countName = (): string | null => {
    const i = args.findIndex((a) => /^(count|len|size)$/.test(a.name));
    return i >= 0 ? ren[args[i].name] ?? args[i].name : null;
  };
  const hasOCreat = sc.name === 'open' || sc.name === 'openat';
  const decode = DECODE[sc.name] ?? {};
  const argFmt = ARGFMT[sc.name] ?? {};
  args.forEach((a, i) => {
    const base = ren[a.name] ?? a.name;
    const t = a.type.replace(/^const /, '').replace(/ __user/, '');
    const isPtr = a.type.endsWith('*');
    const dec = decode[a.name];
    if (dec) {
      // the value (a user struct's address), and its decoded string in its place in argstr
      const braces = dec.startsWith('{');
      const fn = dec.replace(/^\{|\}$/g, '');
      const v = isPtr ? `${base}_uaddr` : base;
      vars.push({ name: v, expr: readArg(t, i, isPtr), fmt: '', shown: '' });
      vars.push({ name: `${base}_str`, expr: fn.includes('@') ? fn.replace('@', v) : `${fn}(${v})`, fmt: '%s', shown: '' });
      fmts.push(braces ? '{%s}' : '%s'); shown.push(`${base}_str`);
      return;
    }
    if (argFmt[a.name]) {
      vars.push({ name: base, expr: readArg(t, i, isPtr), fmt: '', shown: '' });
      fmts.push(argFmt[a.name]); shown.push(base);
      return;
    }
    if (isPtr && isString(sc, a)) {
      vars.push({ name: `${base}_uaddr`, expr: `__sc_arg(${i})`, fmt: '', shown: '' });
      vars.push({ name: base, expr: `user_string_quoted(${base}_uaddr)`, fmt: '%s', shown: base });
      fmts.push('%s'); shown.push(base);
      return;
    }
    if (isPtr && (sc.name === 'execve' || sc.name === 'execveat') && (a.name === 'argv' || a.name === 'envp')) {
      const v = a.name === 'argv' ? 'args' : 'env_str';
      vars.push({ name: `${a.name}_uaddr`, expr: `__sc_arg(${i})`, fmt: '', shown: '' });
      vars.push({ name: v, expr: a.name === 'argv' ? `__sc_argv_str(${i})` : `__sc_env_str(${i})`, fmt: '%s', shown: v });
      fmts.push('%s'); shown.push(v);
      return;
    }
    if (isPtr) {
      const v = base === 'buf' || !/_uaddr$/.test(base) ? `${base}_uaddr` : base;
      vars.push({ name: v, expr: `__sc_arg(${i})`, fmt: '%p', shown: v });
      const cn = countName();
      if ((sc.name === 'write' || sc.name === 'pwrite64' || sc.name === 'sendto') && base === 'buf' && cn) {
        fmts.push('%s'); shown.push(`user_buffer_quoted(${v}, ${cn}, syscall_string_trunc)`);
        late.push({ name: 'buf_str', expr: `user_buffer_quoted(${v}, ${cn}, syscall_string_trunc)`, fmt: '', shown: '' });
      } else { fmts.push('%p'); shown.push(v); }
      return;
    }
    vars.push({ name: base, expr: readArg(t, i, false), fmt: '', shown: '' });
    const flag = (fn: string, suffix = '_str'): void => {
      vars.push({ name: `${base}${suffix}`, expr: `${fn}(${base})`, fmt: '%s', shown: '' });
      fmts.push('%s'); shown.push(`${base}${suffix}`);
    };
    const n = a.name;
    if (/^(dfd|olddfd|newdfd|fromfd? |todfd|mount_dfd)$/.test(n) || n === 'dirfd' || (sc.name === 'execveat' && n === 'fd')) return flag('_dfd_str');
    if ((sc.name === 'fanotify_init' && n === 'event_f_flags') || (sc.name === 'mq_open' && n === 'oflag')) return flag('_sys_open_flag_str');
    if ((sc.name === 'pkey_mprotect' || sc.name === 'remap_file_pages') && n === 'prot') return flag('_mprotect_prot_str');
    if (sc.name === 'remap_file_pages' && n === 'flags') return flag('_mmap_flags');
    if ((sc.name === 'setns' && n === 'flags') || (sc.name === 'unshare' && n === 'unshare_flags')) return flag('__fork_flags');
    if (sc.name === 'statx' && n === 'flags') return flag('_at_flag_str');
    if ((/^timer(fd)?_create$/.test(sc.name) && n === 'which_clock') || n === 'clockid') return flag('_get_wc_str');
    if (hasOCreat && n === 'flags') return flag('_sys_open_flag_str');
    if (hasOCreat && n === 'mode') { fmts.push('@MODE'); shown.push(base); return; }
    if ((sc.name === 'mmap' || sc.name === 'mprotect') && n === 'prot') return flag('_mprotect_prot_str');
    if (sc.name === 'mmap' && n === 'flags') return flag('_mmap_flags');
    if (/^(sig|signum)$/.test(n)) return flag('_signal_name');
    if (/wait/.test(sc.name) && n === 'options') return flag('_wait4_opt_str');
    if (sc.name === 'clone' && n === 'clone_flags') return flag('__fork_flags');
    if (/lseek/.test(sc.name) && n === 'whence') return flag('_seek_whence_str');
    if (/^clock_/.test(sc.name) && n === 'which_clock') return flag('_get_wc_str');
    if (/access/.test(sc.name) && n === 'mode') return flag('_access_mode_str');
    if (sc.name === 'fcntl' && n === 'cmd') return flag('_fcntl_cmd_str');
    if (/^socket/.test(sc.name) && n === 'family') return flag('_sock_family_str');
    if (/^socket/.test(sc.name) && n === 'type') return flag('_sock_type_str');
    if (/^(send|recv)/.test(sc.name) && n === 'flags') return flag('_msg_flags_str');
    if (sc.name === 'futex' && n === 'op') return flag('_futex_op_str');
    if (/sigprocmask$/.test(sc.name) && n === 'how') return flag('_sigprocmask_how_str');
    if (/at2?$/.test(sc.name) && /^(flag|flags)$/.test(n) && sc.name !== 'openat' && sc.name !== 'renameat2') return flag('_at_flag_str');
    if (n === 'mode' || a.type === 'umode_t') { fmts.push('%#o'); shown.push(base); return; }
    fmts.push(/fd$|^fd|pid|sig/.test(n) || SIGNED.test(t) ? '%d' : '%u');
    shown.push(base);
  });
  vars.push(...late);
  let argstr: string;
  const mi = fmts.indexOf('@MODE');
  if (mi >= 0) {
    const f1 = fmts.filter((f, k) => k !== mi).join(', ');
    const s1 = shown.filter((f, k) => k !== mi);
    const f2 = fmts.map((f) => (f === '@MODE' ? '%#o' : f)).join(', ');
    argstr = `flags & 64 ? sprintf("${f2}", ${shown.join(', ')}) : sprintf("${f1}", ${s1.join(', ')})`;
  } else if (!fmts.length) argstr = '""';
  else argstr = `sprintf("${fmts.join(', ')}", ${shown.join(', ')})`;
  return { vars, argstr };
}

function retFmt(sc: Syscall): number {
  return /^(mmap|brk|mremap|shmat)$/.test(sc.name) ? 2 : 1;
}

function body(sc: Syscall, alias: string, nrTest: string): string {
  const { vars, argstr } = argVars(sc);
  const lines = [`  ${nrTest}`, `  name = "${alias}"`];
  for (const v of vars) lines.push(`  ${v.name} = ${v.expr}`);
  lines.push(`  argstr = ${argstr}`);
  return lines.join('\n');
}

function retBody(sc: Syscall, alias: string, nrTest: string): string {
  return [`  ${nrTest}`, `  name = "${alias}"`, '  retval = __sc_ret()', `  retstr = return_str(${retFmt(sc)}, retval)`].join('\n');
}

/**
 * wait4.return's status (stap 4.8's sysc_wait4.stp): "N/A" when no child was reaped, "NULL"
 * without a status pointer, else the status the call stored, decoded (WEXITSTATUS=0 ...); the
 * DWARF flavour has no status_uaddr.
 */
function wait4Status(dwarf: boolean): string[] {
  const addr = dwarf ? '@entry($stat_addr)' : 'status_uaddr';
  return [...(dwarf ? [] : ['status_uaddr = __sc_arg(1)']),
    `status_str = retval <= 0 ? "N/A" : ${addr} == 0 ? "NULL" : _wait_status_str(user_int(${addr}))`];
}

const DATA = path.resolve(__dirname, '..', '..', 'data', 'tapset-names');
const FLAVOURS = ['syscall', 'dw_syscall', 'nd_syscall', 'nd1_syscall', 'nd2_syscall', 'tp_syscall'];

interface AliasLine { name: string; family: string; base: string; ret: boolean; points: string[] }

/** "a?, kprobe.function("__{ia32,x64}_x")!" -> points, commas inside quotes kept. */
function splitPoints(rhs: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (const ch of rhs) {
    if (ch === '"') q = !q;
    if (ch === ',' && !q) { out.push(cur.trim()); cur = ''; continue; }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function readPoints(): AliasLine[] {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(DATA, 'syscall-points.txt.gz'))).toString('utf8');
  const out: AliasLine[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf(' = ');
    const name = line.slice(0, i);
    const family = name.slice(0, name.indexOf('.'));
    let base = name.slice(family.length + 1);
    const ret = base.endsWith('.return');
    if (ret) base = base.slice(0, -'.return'.length);
    out.push({ name, family, base, ret, points: splitPoints(line.slice(i + 3)) });
  }
  return out;
}

function hasFunction(name: string): boolean {
  return lookupName(name).some(isFunction);
}

/**
 * `kprobe.function("__{ia32,x64}_sys_x")?` (stap's @arch_syscall_prefix): the x86_64 entry point
 * only. stap 4.8 also puts a kprobe on the ia32 entry (__ia32_sys_x), which only 32-bit tasks
 * reach; the simulated machine runs none, and the second probe of every syscall would double the
 * elaboration of `probe syscall.*` (the -p2 listing shows one kprobe per syscall where stap shows two);
 * a syscall only ia32 has (chown16, the compat_* ones) keeps its ia32 entry.
 */
function expandBraces(p: string): string[] {
  const m = /^(.*")([^"]*)\{([^}]*)\}([^"]*)(".*?)([?!]*)$/.exec(p);
  if (!m) return [p];
  const [, pre, a, alts, b, post, flags] = m;
  const names = alts.split(',').map((x) => `${a}${x}${b}`);
  const x64 = names.find((n) => n.startsWith('__x64_') && hasFunction(n)) ?? names.find(hasFunction);
  return [`${pre}${x64 ?? names[names.length - 1]}${post}${flags}`];
}

interface Def { name: string; compat: boolean; args: { type: string; name: string }[] | null; nr: number | null }

function readDefs(): Map<string, { type: string; name: string }[]> {
  const m = new Map<string, { type: string; name: string }[]>();
  for (const line of fs.readFileSync(path.join(DATA, 'syscall-defs.tsv'), 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [kind, name, args] = line.split('\t');
    m.set(`${kind} ${name}`, args ? args.split(',').map((a) => {
      const k = a.lastIndexOf(':');
      return { type: a.slice(0, k).replace(/ __user\b/g, '').trim(), name: a.slice(k + 1) };
    }) : []);
  }
  return m;
}

/** The syscall a kernel function of a probe point implements: __{ia32,x64}_compat_sys_x -> compat x. */
function funcOfPoint(p: string): { compat: boolean; name: string } | null {
  const m = /function\("([^"]+)"\)/.exec(p);
  if (!m) return null;
  const f = m[1].replace(/^__\{ia32,x64\}_/, '').replace(/^__(x64|ia32)_/, '');
  const c = /^compat_sys_(\w+)$/.exec(f);
  if (c) return { compat: true, name: c[1] };
  const s = /^sys(?:32)?_(\w+)$/.exec(f);
  return s ? { compat: false, name: s[1] } : null;
}

class Gen {
  private byName = new Map<string, AliasLine[]>();
  private defs = readDefs();
  private native = new Map<string, Syscall>();
  private resolved = new Map<string, Def | null>();
  private stapVars = readSyscallVars(path.join(DATA, 'stap-4.8-syscall-vars.txt'));

  constructor(readonly lines: AliasLine[]) {
    for (const l of lines) {
      const a = this.byName.get(l.name) ?? [];
      a.push(l);
      this.byName.set(l.name, a);
    }
    for (const r of syscalls()) if (r.abi !== 'x32' && r.entry && !this.native.has(r.name)) this.native.set(r.name, r);
  }

  /** The kernel functions the points of `name` reach (through other aliases), in order. */
  private funcs(name: string, depth = 0, out: { compat: boolean; name: string }[] = []): { compat: boolean; name: string }[] {
    if (depth > 4) return out;
    for (const l of this.byName.get(name) ?? []) {
      for (const p of l.points) {
        const f = funcOfPoint(p);
        if (f) out.push(f);
        const ref = p.replace(/[?!]+$/, '');
        if (this.byName.has(ref)) this.funcs(ref, depth + 1, out);
      }
    }
    return out;
  }

  /** The function defining a flavour's arguments: a native syscall's before a compat one's. */
  private firstFunc(name: string): { compat: boolean; name: string } | null {
    const fs_ = this.funcs(name);
    return fs_.find((f) => !f.compat && this.native.has(f.name)) ?? fs_.find((f) => !f.compat) ?? fs_[0] ?? null;
  }

  /** What stap's syscall BASE is: its kernel definition (arguments) and x86_64 number. */
  def(base: string): Def | null {
    if (this.resolved.has(base)) return this.resolved.get(base)!;
    const f = this.firstFunc(`nd2_syscall.${base}`) ?? this.firstFunc(`__nd2_syscall.${base}`)
      ?? this.firstFunc(`dw_syscall.${base}`) ?? this.firstFunc(`__syscall.${base}`) ?? this.firstFunc(`nd1_syscall.${base}`);
    let d: Def | null = null;
    if (f) {
      const row = f.compat ? undefined : this.native.get(f.name);
      const args = row && row.args ? row.args : this.defs.get(`${f.compat ? 'compat' : 'sys'} ${f.name}`) ?? (row ? row.args : null);
      d = { name: f.name, compat: f.compat, args, nr: row ? row.nr : null };
    }
    this.resolved.set(base, d);
    return d;
  }

  /** The variables and argstr of `d`, named as stap 4.8 names those of alias `keys[0]` (or the next listed). */
  private argsOf(d: Def | null, keys: string[]): { vars: Var[]; argstr: string } {
    if (!d || !d.args) return { vars: [], argstr: '""' };
    const { vars, argstr } = argVars({ nr: d.nr ?? -1, abi: 'common', name: d.name, entry: '', tableSymbol: '', args: d.args });
    const key = keys.find((k) => this.stapVars.has(k));
    return conformVars(key ? this.stapVars.get(key) : undefined, vars, argstr,
      this.stapVars.get(keys[keys.length - 1]));
  }

  /** Body of one alias: variables (entry) or retval/retstr (return), as its flavour reads them. */
  body(l: AliasLine, internal: boolean): string {
    // `never` (exit, exit_group .return) is a point of its own: stap's alias still defines the
    // return variables (stap -L syscall.exit.return lists name, retval, retstr)
    const never = l.points.length > 0 && l.points.every((p) => p === 'never');
    const direct = never || l.points.some((p) => /^(kernel|kprobe)\./.test(p));
    const viaTrace = l.points.some((p) => p.startsWith('kernel.trace'));
    const family = l.family.replace(/^__/, '');
    // the dispatchers (syscall., nd_syscall.) and the internal parts carry no variables
    if (!direct && (family === 'syscall' || family === 'nd_syscall' || internal)) return '';
    const dwarf = family === 'dw_syscall' || l.points.some((p) => p.startsWith('kernel.function'));
    const d = this.def(l.base);
    const lines: string[] = [];
    if (viaTrace) lines.push(!d || d.compat || d.nr === null ? 'if (!@__compat_task) next' : `if (__sc_nr() != ${d.nr}) next`);
    if (internal) return lines.join('\n');
    const alias = l.base.replace(/^compat_sys_/, '');
    lines.push(`name = "${alias}"`);
    if (l.ret) {
      lines.push(`retval = ${never ? '0' : dwarf ? '$return' : '__sc_ret()'}`);
      lines.push(`retstr = return_str(${d && /^(mmap|mmap2|mmap_pgoff|brk|mremap|shmat)$/.test(d.name) ? 2 : 1}, retval)`);
      if (l.base === 'wait4') lines.push(...wait4Status(dwarf));
      return lines.join('\n');
    }
    if (!dwarf) {
      if (d && d.args && d.args.length) lines.push(`@_SC_${l.base}`);
      else lines.push('argstr = ""');
      return lines.join('\n');
    }
    const { vars, argstr } = this.argsOf(d, [`${family}.${l.base}`, `nd_syscall.${l.base}`]);
    const params = d && d.args ? d.args.map((a) => a.name) : [];
    const dw = (e: string): string => e
      .replace(/__sc_argi32\((\d+)\)/g, (_m, i) => `__int32($${params[+i]})`)
      .replace(/__sc_argu32\((\d+)\)/g, (_m, i) => `__uint32($${params[+i]})`)
      .replace(/__sc_arg\((\d+)\)/g, (_m, i) => `$${params[+i]}`);
    for (const v of vars) lines.push(`${v.name} = ${dw(v.expr)}`);
    lines.push(`argstr = ${dw(argstr)}`);
    return lines.join('\n');
  }

  /** The @_SC_BASE macro of the non-DWARF flavours: the variables and argstr. */
  macro(base: string): string | null {
    const d = this.def(base);
    if (!d || !d.args || !d.args.length) return null;
    const { vars, argstr } = this.argsOf(d, [`nd2_syscall.${base}`, `nd_syscall.${base}`, `tp_syscall.${base}`]);
    return `@define _SC_${base} %(\n${vars.map((v) => `  ${v.name} = ${v.expr}\n`).join('')}  argstr = ${argstr}\n%)`;
  }

  /**
   * The single point of an internal alias of the DWARF and nd1 flavours (empty body), put in its
   * users' place: those never resolve on 6.1 (no sys_NAME function), and an elaboration of
   * `syscall.*` then decodes two declarations fewer per syscall.  (__nd2_syscall.* and
   * __tp_syscall.* stay: they resolve, and stap's derivation chains name them.)
   */
  inlined(l: AliasLine): string | null {
    if (!['__syscall', '__nd1_syscall', '__dw_syscall'].includes(l.family)) return null;
    const defs = this.byName.get(l.name) ?? [];
    if (defs.length !== 1 || l.points.length !== 1) return null;
    return l.points[0];
  }

  private pointsOf(l: AliasLine): string[] {
    return l.points.map((p) => {
      const m = /^(.*?)([?!]*)$/.exec(p)!;
      const target = this.byName.get(m[1]);
      const inl = target && target.length === 1 ? this.inlined(target[0]) : null;
      if (!inl) return p;
      const im = /^(.*?)([?!]*)$/.exec(inl)!;
      const flags = new Set((m[2] + im[2]).split(''));
      return im[1] + (flags.has('!') ? '!' : '') + (flags.has('?') ? '?' : '');
    });
  }

  render(l: AliasLine): string {
    const internal = l.family.startsWith('__');
    const pts = this.pointsOf(l).flatMap(expandBraces).join(', ');
    const b = this.body(l, internal);
    return `probe ${l.name} = ${pts}\n{${b ? '\n' + b.split('\n').map((x) => '  ' + x).join('\n') + '\n' : ' '}}`;
  }
}

function main(): void {
  const out = path.resolve(__dirname, '..', '..', 'stdlib');
  const g = new Gen(readPoints());
  const sorted = [...g.lines].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0)
    || FLAVOURS.indexOf(a.family.replace(/^__/, '')) - FLAVOURS.indexOf(b.family.replace(/^__/, '')) || (a.ret ? 1 : 0) - (b.ret ? 1 : 0));
  const dwFile = ['syscall', 'dw_syscall', '__syscall', '__dw_syscall'];
  const sys: string[] = [
    '// GENERATED by scripts/gen-syscall-tapsets.ts from stap 4.8\'s syscall probe points: do not edit.',
    '// syscall.NAME = dw_syscall.NAME !, nd_syscall.NAME: the DWARF flavour first (kernel.function("sys_NAME"),',
    '// $parameters), else nd_syscall.NAME (stdlib/nd_syscalls.stp). Variables: name, argstr, the arguments',
    '// (user pointers as NAME_uaddr, path strings quoted, flags also as NAME_str); .return: name, retval, retstr.',
    '',
  ];
  const nd: string[] = [
    '// GENERATED by scripts/gen-syscall-tapsets.ts from stap 4.8\'s syscall probe points: do not edit.',
    '// nd_syscall.NAME = nd1_syscall.NAME !, nd2_syscall.NAME !, tp_syscall.NAME: kprobes on sys_NAME, on the',
    '// 4.17+ wrappers __ia32_sys_NAME / __x64_sys_NAME, or the sys_enter/sys_exit tracepoints for the number.',
    '',
  ];
  const macros = new Set<string>();
  for (const l of sorted) {
    if (g.inlined(l)) continue;
    const text = g.render(l);
    if (dwFile.includes(l.family)) { sys.push(text); continue; }
    if (!l.ret && !macros.has(l.base) && /[a-z]/.test(l.base) && !l.base.includes('.')) {
      const m = g.macro(l.base);
      macros.add(l.base);
      if (m) nd.push(m);
    }
    nd.push(text);
  }
  fs.writeFileSync(path.join(out, 'syscalls.stp'), sys.join('\n') + '\n');
  fs.writeFileSync(path.join(out, 'nd_syscalls.stp'), nd.join('\n') + '\n');
  process.stdout.write(`${sorted.length} aliases -> stdlib/syscalls.stp, stdlib/nd_syscalls.stp\n`);
}

main();
