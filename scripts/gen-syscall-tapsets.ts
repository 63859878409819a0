/**
 * Generates stdlib/syscalls.stp (syscall.NAME / syscall.NAME.return) and stdlib/nd_syscalls.stp
 * (nd_syscall.NAME / .return) for every native syscall of the simulated kernel's table
 * (src/kernel/syscalls.ts: syscall_64.tbl + SYSCALL_DEFINE metadata).
 *
 *   npx tsc -p . && node dist/scripts/gen-syscall-tapsets.js
 *
 * syscall.NAME fires on the raw_syscalls:sys_enter tracepoint for that syscall number (every
 * syscall the machine executes passes it, as every real one does), nd_syscall.NAME on a kprobe
 * at the syscall's table entry point (`__x64_sys_NAME`).  Both read the arguments through the
 * `__sc_*` functions of stdlib/aux_syscalls.stp (src/probes/tapset_builtins.ts) and format
 * `argstr` the way stap's syscall tapsets do: fds and signed values `%d`, sizes `%u`, user
 * pointers `%p`, path strings quoted, flags and enums through the aux_syscalls formatters.
 */
import * as fs from 'fs';
import * as path from 'path';
import { syscalls, Syscall } from '../src/kernel/syscalls';

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
};

const STRING_ARGS = new Set(['filename', 'pathname', 'path', 'oldname', 'newname', 'specialfile', 'library', 'dev_name',
  'dir_name', 'oldpath', 'newpath', 'linkpath', 'target', 'old', 'new', 'name_uaddr', 'uservaddr_str']);
const SIGNED = /^(int|long|long long|pid_t|off_t|loff_t|key_t|clockid_t|timer_t|mqd_t|qid_t|__s32|s32|__s64|s64)$/;
const INT32 = /^(int|pid_t|key_t|clockid_t|timer_t|mqd_t|__s32|s32)$/;
const UINT32 = /^(unsigned int|unsigned|umode_t|uid_t|gid_t|u32|__u32|qid_t|rwf_t|old_uid_t|old_gid_t)$/;

interface Var { name: string; expr: string; fmt: string; shown: string }

function isString(sc: Syscall, a: { type: string; name: string }): boolean {
  return /char \*$/.test(a.type) && !/\*\s*const \*$/.test(a.type) && (STRING_ARGS.has(a.name) ||
    ((sc.name === 'mount' || sc.name === 'umount2') && /name|type/.test(a.name)));
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
  args.forEach((a, i) => {
    const base = ren[a.name] ?? a.name;
    const t = a.type.replace(/^const /, '').replace(/ __user/, '');
    const isPtr = a.type.endsWith('*');
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
    const expr = INT32.test(t) ? `__sc_argi32(${i})` : UINT32.test(t) ? `__sc_argu32(${i})` : `__sc_arg(${i})`;
    vars.push({ name: base, expr, fmt: '', shown: '' });
    const flag = (fn: string, suffix = '_str'): void => {
      vars.push({ name: `${base}${suffix}`, expr: `${fn}(${base})`, fmt: '%s', shown: '' });
      fmts.push('%s'); shown.push(`${base}${suffix}`);
    };
    const n = a.name;
    if (/^(dfd|olddfd|newdfd|fromfd? |todfd)$/.test(n) || n === 'dirfd') return flag('_dfd_str');
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
    if (sc.name === 'rt_sigprocmask' && n === 'how') return flag('_sigprocmask_how_str');
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

function main(): void {
  const out = path.resolve(__dirname, '..', '..', 'stdlib');
  const rows = syscalls().filter((s) => s.abi !== 'x32' && s.entry && s.args !== null);
  const seen = new Set<string>();
  const sys: string[] = [
    '// GENERATED by scripts/gen-syscall-tapsets.ts from the simulated kernel\'s syscall table: do not edit.',
    '// syscall.NAME / syscall.NAME.return: the raw_syscalls tracepoints, filtered by syscall number.',
    '// Variables: name, argstr, the arguments (user pointers as NAME_uaddr, path strings quoted),',
    '// flags also as NAME_str; .return: name, retval, retstr.',
    '',
  ];
  const nd: string[] = [
    '// GENERATED by scripts/gen-syscall-tapsets.ts: do not edit.',
    '// nd_syscall.NAME / .return: kprobes on the syscall table entry points (no debuginfo needed).',
    '',
  ];
  for (const sc of rows) {
    const alias = ALIAS_NAME[sc.name] ?? sc.name;
    if (seen.has(alias)) continue;
    seen.add(alias);
    const test = `if (__sc_nr() != ${sc.nr}) next`;
    sys.push(`/** syscall.${alias} - ${sc.name}(${(sc.args ?? []).map((a) => `${a.type} ${a.name}`).join(', ')}) [nr ${sc.nr}] */`);
    sys.push(`probe syscall.${alias} = kernel.trace("raw_syscalls:sys_enter") {\n${body(sc, alias, test)}\n}`);
    const noReturn = sc.name === 'exit' || sc.name === 'exit_group';
    if (!noReturn) sys.push(`probe syscall.${alias}.return = kernel.trace("raw_syscalls:sys_exit") {\n${retBody(sc, alias, test)}\n}`);
    const sym = sc.tableSymbol || `__x64_sys_${sc.name}`;
    nd.push(`probe nd_syscall.${alias} = kprobe.function("${sym}") ? {\n${body(sc, alias, '')}\n}`);
    if (!noReturn) nd.push(`probe nd_syscall.${alias}.return = kprobe.function("${sym}").return ? {\n${retBody(sc, alias, '')}\n}`);
  }
  fs.writeFileSync(path.join(out, 'syscalls.stp'), sys.join('\n') + '\n');
  fs.writeFileSync(path.join(out, 'nd_syscalls.stp'), nd.join('\n').replace(/\n  \n/g, '\n') + '\n');
  process.stdout.write(`${seen.size} syscalls -> stdlib/syscalls.stp, stdlib/nd_syscalls.stp\n`);
}

main();
