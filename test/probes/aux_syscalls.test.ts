/**
 * stap 4.8's decoders of the syscall tapsets (issue 16: src/probes/aux_syscalls.ts,
 * aux_syscalls_user.ts). The expected strings follow the formatting rules of stap 4.8's
 * tapset/linux/aux_syscalls.stp (_stp_lookup_str: the name, else 0x%lx; _stp_lookup_or_str: the
 * names of the bits in the table's order, then the rest in hex, 0 as "0x0" unless named;
 * _struct_timespec_u "[%ld.%09ld]", _stp_sigset_str "[A|B]" / "[EMPTY]" in stap's list order
 * (SIGPIPE before SIGUSR2), _struct_sigaction_u's "handler, flags, 0xrestorer, mask",
 * _struct_rlimit_u "[%ld,%ld]", "NULL" for NULL, the address in hex for unreadable memory) with
 * the names strace prints for the same calls on Debian 12 (e.g. `strace sleep 0.5`:
 * clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=500000000}, ...); `strace -e trace=setsockopt ping`:
 * setsockopt(3, SOL_SOCKET, SO_SNDBUF, ...)); the end-to-end cases run the CLI on the machine.
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { auxSyscallBuiltins as B, lookupOrStr, lookupStr } from '../../src/probes/aux_syscalls';
import { auxSyscallUserBuiltins as U, sigsetStr, waitStatusStr } from '../../src/probes/aux_syscalls_user';
import { userSpace } from '../../src/kernel/memory';
import type { ProbeContext } from '../../src/runtime/context';

const PID = 90417;
const c = { task: { pid: PID } } as unknown as ProbeContext;

function put(addr: number, ...words: (number | bigint)[]): number {
  const us = userSpace(PID);
  us.map(addr, words.length * 8);
  words.forEach((w, i) => us.writeUnsigned(addr + i * 8, 8, BigInt.asUintN(64, BigInt(w))));
  return addr;
}

describe('aux_syscalls: stap 4.8\'s flag and enum decoders', () => {
  it('_stp_lookup_str / _stp_lookup_or_str rules', () => {
    const t = [[1, 'A'], [2, 'B'], [6, 'BC']] as const;
    expect(lookupStr(t, 2)).to.equal('B');
    expect(lookupStr(t, 9)).to.equal('0x9');
    expect(lookupStr(t, -1)).to.equal('0xffffffffffffffff');
    expect(lookupOrStr(t, 0)).to.equal('0x0');
    expect(lookupOrStr([[0, 'ZERO'], [1, 'A']], 0)).to.equal('ZERO');
    // an entry sharing any bit is named, its bits cleared: 7 = A|B, then BC has bit 4 left
    expect(lookupOrStr(t, 7)).to.equal('A|B|BC');
    expect(lookupOrStr(t, 0x11)).to.equal('A|0x10');
  });

  it('memory flags and advice: mremap, msync, mlockall, mlock2, madvise, fadvise64', () => {
    expect(B._mremap_flags(c, 3)).to.equal('MREMAP_MAYMOVE|MREMAP_FIXED');
    expect(B._mremap_flags(c, 0)).to.equal('0x0');
    expect(B._mremap_flags(c, 5)).to.equal('MREMAP_MAYMOVE|0x4');
    expect(B._msync_flag_str(c, 4)).to.equal('MS_SYNC');
    expect(B._msync_flag_str(c, 3)).to.equal('MS_ASYNC|MS_INVALIDATE');
    expect(B._mlockall_flags_str(c, 3)).to.equal('MCL_CURRENT|MCL_FUTURE');
    expect(B._stp_mlock2_str(c, 1)).to.equal('MLOCK_ONFAULT');
    expect(B._madvice_advice_str(c, 4)).to.equal('MADV_DONTNEED');
    expect(B._madvice_advice_str(c, 14)).to.equal('MADV_HUGEPAGE');
    expect(B._madvice_advice_str(c, 20)).to.equal('0x14');
    expect(B._fadvice_advice_str(c, 2)).to.equal('POSIX_FADV_SEQUENTIAL');
    expect(B._fadvice_advice_str(c, 4)).to.equal('POSIX_FADV_DONTNEED');
  });

  it('fd flags: dup3, accept4, eventfd2, timerfd_create, userfaultfd', () => {
    expect(B._dup3_flag_str(c, 0o2000000)).to.equal('O_CLOEXEC');
    expect(B._dup3_flag_str(c, 0)).to.equal('0x0');
    expect(B._sock_flags_str(c, 0o2004000)).to.equal('SOCK_CLOEXEC|SOCK_NONBLOCK');
    expect(B._eventfd2_flag_str(c, 0o2004000)).to.equal('EFD_NONBLOCK|EFD_CLOEXEC');
    expect(B._stp_timerfd_flags_str(c, 0o2004000)).to.equal('TFD_CLOEXEC|TFD_NONBLOCK');
    expect(B._userfaultfd_flags_str(c, 0o2000000)).to.equal('O_CLOEXEC');
  });

  it('sockets: setsockopt levels and option names (SO_ names whatever the level), protocols, shutdown', () => {
    expect(B._sockopt_level_str(c, 1)).to.equal('SOL_SOCKET');
    expect(B._sockopt_level_str(c, 0)).to.equal('SOL_IP');
    expect(B._sockopt_level_str(c, 6)).to.equal('SOL_TCP');
    expect(B._sockopt_level_str(c, 255)).to.equal('SOL_RAW');
    expect(B._sockopt_optname_str(c, 7)).to.equal('SO_SNDBUF');
    expect(B._sockopt_optname_str(c, 20)).to.equal('SO_RCVTIMEO');
    expect(B._sockopt_optname_str(c, 29)).to.equal('SO_TIMESTAMP');
    expect(B._sockopt_optname_str(c, 1000)).to.equal('0x3e8');
    expect(B._sock_protocol_str(c, 2, 6)).to.equal('IPPROTO_TCP');
    expect(B._sock_protocol_str(c, 2, 1)).to.equal('IPPROTO_ICMP');
    expect(B._sock_protocol_str(c, 1, 0)).to.equal('0');
    expect(B._shutdown_how_str(c, 2)).to.equal('SHUT_RDWR');
  });

  it('processes: scheduling policies, rlimit resources, rusage, priority, waitid, itimers', () => {
    expect(B._sched_policy_str(c, 1)).to.equal('SCHED_FIFO');
    expect(B._sched_policy_str(c, 0)).to.equal('SCHED_OTHER');
    expect(B._sched_policy_str(c, 0x40000002)).to.equal('SCHED_RESET_ON_FORK|SCHED_RR');
    expect(B._sched_policy_str(c, 4)).to.equal('0x4');
    expect(B._rlimit_resource_str(c, 3)).to.equal('RLIMIT_STACK');
    expect(B._rlimit_resource_str(c, 6)).to.equal('RLIMIT_NPROC');
    expect(B._rusage_who_str(c, -1)).to.equal('RUSAGE_CHILDREN');
    expect(B._rusage_who_str(c, 0)).to.equal('RUSAGE_SELF');
    expect(B._priority_which_str(c, 2)).to.equal('PRIO_USER');
    expect(B._waitid_which_str(c, 1)).to.equal('P_PID');
    expect(B._itimer_which_str(c, 0)).to.equal('ITIMER_REAL');
  });

  it('files: mknod modes, epoll_ctl ops, renameat2, fallocate, inotify masks, shm flags', () => {
    expect(B._mknod_mode_str(c, 0o10644)).to.equal('S_IFIFO|0644');
    expect(B._mknod_mode_str(c, 0o20600)).to.equal('S_IFCHR|0600');
    expect(B._mknod_mode_str(c, 0o644)).to.equal('0644');
    expect(B._mknod_mode_str(c, 0o100000)).to.equal('S_IFREG|0');
    expect(B._opoll_op_str(c, 1)).to.equal('EPOLL_CTL_ADD');
    expect(B._opoll_op_str(c, 2)).to.equal('EPOLL_CTL_DEL');
    expect(B._renameat2_flags_str(c, 1)).to.equal('RENAME_NOREPLACE');
    expect(B._stp_fallocate_mode_str(c, 3)).to.equal('FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE');
    expect(B._inotify_watch_mask_str(c, 0x80000302)).to.equal('IN_MODIFY|IN_CREATE|IN_DELETE|IN_ONESHOT');
    expect(B._stp_shmget_flags_str(c, 0o1600)).to.equal('IPC_CREAT|0600');
    expect(B._stp_shmget_flags_str(c, 0o600)).to.equal('0x0|0600');
    expect(B._shmat_flags_str(c, 0o10000)).to.equal('SHM_RDONLY');
    expect(B._stp_clock_nanosleep_flags_str(c, 0)).to.equal('0x0');
    expect(B._stp_clock_nanosleep_flags_str(c, 1)).to.equal('TIMER_ABSTIME');
    // statx's mask is looked up in the AT_STATX_* list: STATX_BASIC_STATS shows in hex
    expect(B._statx_mask_str(c, 0x7ff)).to.equal('0x7ff');
    expect(B._statx_mask_str(c, 0)).to.equal('AT_STATX_SYNC_AS_STAT');
    expect(B._swapon_flags_str(c, 0x8000 | 5)).to.equal('SWAP_FLAG_PREFER|5');
    expect(B._swapon_flags_str(c, 0x10000)).to.equal('SWAP_FLAG_DISCARD');
    expect(B._swapon_flags_str(c, 0)).to.equal('0x0');
    expect(B._pkey_alloc_init_val_str(c, 3)).to.equal('PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE');
  });

  it('System V IPC: commands (IPC_64|), semget/msgget flags and keys, msg flags; ioprio', () => {
    expect(B._semctl_cmd(c, 0)).to.equal('IPC_RMID');
    expect(B._semctl_cmd(c, 15)).to.equal('GETZCNT');
    expect(B._semctl_cmd(c, 0x100 | 2)).to.equal('IPC_64|IPC_STAT');
    expect(B._stp_msgctl_cmd_str(c, 12)).to.equal('MSG_INFO');
    expect(B.__sem_flags(c, 0o1600)).to.equal('IPC_CREAT|0600');
    expect(B.__sem_flags(c, 0o3000)).to.equal('IPC_CREAT|IPC_EXCL');
    expect(B.__sem_flags(c, 0)).to.equal('');
    expect(B._stp_msgget_key_str(c, 0)).to.equal('IPC_PRIVATE');
    expect(B._stp_msgget_key_str(c, 1234)).to.equal('1234');
    expect(B._stp_msgflg_str(c, 0o4000)).to.equal('IPC_NOWAIT');
    expect(B._stp_ioprio_which_str(c, 1)).to.equal('IOPRIO_WHO_PROCESS');
    expect(B._stp_ioprio_which_str(c, 9)).to.equal('9');
    expect(B._stp_ioprio_value_str(c, (2 << 13) | 4)).to.equal('IOPRIO_CLASS_BE|4');
  });
});

describe('aux_syscalls: stap 4.8\'s user struct decoders', () => {
  it('timespec and timeval: [sec.nsec], UTIME_NOW/UTIME_OMIT, NULL, unreadable memory in hex', () => {
    const a = put(0x7ffc5b100000, 0, 500000000, 12, (1 << 30) - 1);
    expect(U._struct_timespec_u(c, a, 1)).to.equal('[0.500000000]');
    expect(U._struct_timespec_u(c, a, 2)).to.equal('[0.500000000][UTIME_NOW]');
    expect(U._struct_timespec_u(c, 0, 1)).to.equal('NULL');
    expect(U._struct_timespec_u(c, a, 3)).to.equal('NULL');
    expect(U._struct_timespec_u(c, 0x7ffc5b900000, 1)).to.equal('0x7ffc5b900000');
    const tv = put(0x7ffc5b101000, 1, 250000);
    expect(U._struct_timeval_u(c, tv, 1)).to.equal('[1.250000]');
    const it = put(0x7ffc5b102000, 0, 0, 2, 500000);
    expect(U._struct_itimerval_u(c, it)).to.equal('[0.000000,2.500000]');
  });

  it('sigsets in stap\'s list order, [EMPTY], real-time signals not named', () => {
    expect(sigsetStr(0n)).to.equal('[EMPTY]');
    expect(sigsetStr((1n << 1n) | (1n << 14n))).to.equal('[SIGINT|SIGTERM]');
    expect(sigsetStr((1n << 11n) | (1n << 12n))).to.equal('[SIGPIPE|SIGUSR2]');
    expect(sigsetStr(1n << 33n)).to.equal('[EMPTY]');
    const a = put(0x7ffc5b103000, 1 << 16);
    expect(U._stp_sigset_u(c, a)).to.equal('[SIGCHLD]');
  });

  it('sigaction: SIG_DFL / SIG_IGN alone, a handler with its flags, restorer and mask', () => {
    expect(U._struct_sigaction_u(c, put(0x7ffc5b104000, 0, 0x04000000, 0x7f0000001000, 0))).to.equal('SIG_DFL');
    expect(U._struct_sigaction_u(c, put(0x7ffc5b104100, 1, 0x04000000, 0x7f0000001000, 0))).to.equal('SIG_IGN');
    expect(U._struct_sigaction_u(c, put(0x7ffc5b104200, 0x55d4c6a01230, 0x14000000, 0x7f0000001000, 1 << 13)))
      .to.equal('0x55d4c6a01230, SA_RESTART|SA_RESTORER, 0x7f0000001000, [SIGALRM]');
  });

  it('wait statuses as _wait_status_str decodes them', () => {
    expect(waitStatusStr(0)).to.equal('WEXITSTATUS=0');
    expect(waitStatusStr(1 << 8)).to.equal('WEXITSTATUS=1');
    expect(waitStatusStr(9)).to.equal('WTERMSIG=SIGKILL');
    expect(waitStatusStr(0x80 | 11)).to.equal('WCOREDUMP');
    expect(waitStatusStr((19 << 8) | 0x7f)).to.equal('WSTOPSIG=SIGSTOP');
    expect(waitStatusStr((1 << 16) | (5 << 8) | 0x7f)).to.equal('WSTOPSIG=SIGTRAP | PTRACE_EVENT_FORK << 8');
    expect(waitStatusStr(0xffff)).to.equal('WIFCONTINUED');
  });

  it('rlimit: [cur,max] as signed longs (RLIM_INFINITY is -1)', () => {
    expect(U._struct_rlimit_u(c, put(0x7ffc5b105000, 8388608, -1))).to.equal('[8388608,-1]');
    expect(U._struct_rlimit_u(c, 0)).to.equal('NULL');
  });
});

describe('syscall aliases: decoded variables on the machine', function () {
  this.timeout(120000);
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  const stap = (args: string[]): string => spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 }).stdout;

  it('sleep 0.5: clock_nanosleep\'s request as [0.500000000], its flags and clock', () => {
    const out = stap(['-c', 'sleep 0.5', '-e',
      'probe syscall.clock_nanosleep { if (pid() == target()) printf("%s|%s|%s|%s\\n", clk_id_str, flags_str, req_str, argstr) }']);
    expect(out).to.match(/^CLOCK_REALTIME\|0x0\|\[0\.500000000\]\|CLOCK_REALTIME, 0x0, \[0\.500000000\], 0x0\n$/);
  });

  it('sh running /bin/true and /bin/false: wait4\'s pid and status_str WEXITSTATUS=0, then 1, each WNOHANG one ECHILD and N/A', () => {
    // strace -f sh -c "/bin/true; /bin/false": wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = PID,
    // wait4(-1, ..., WNOHANG, NULL) = -1 ECHILD, then WEXITSTATUS(s) == 1
    const out = stap(['-c', 'sh -c "/bin/true; /bin/false"', '-e',
      'probe syscall.wait4.return { if (pid() == target()) printf("%d %s\\n", retval, status_str) }']);
    expect(out).to.match(/^\d+ WEXITSTATUS=0\n-10 N\/A\n\d+ WEXITSTATUS=1\n-10 N\/A\n$/);
  });

  it('bash: rt_sigprocmask\'s set and rt_sigaction\'s act as stap decodes them, prlimit64\'s resource', () => {
    const out = stap(['-c', 'bash -c "/bin/true"', '-e',
      'probe syscall.rt_sigprocmask, syscall.rt_sigaction, syscall.prlimit64 { if (pid() == target()) printf("%s(%s)\\n", name, argstr) }']);
    expect(out).to.contain('prlimit64(0, RLIMIT_STACK, NULL, 0x0)\n');
    expect(out).to.contain('rt_sigprocmask(SIG_BLOCK, [SIGINT|SIGTERM|SIGCHLD], ');
    expect(out).to.match(/rt_sigaction\(SIGCHLD, \{0x[0-9a-f]+, SA_RESTORER, 0x[0-9a-f]+, \[EMPTY\]\}, 0x0, 8\)\n/);
  });
});
