/**
 * Signals as kernel/signal.c runs them: kill(2) (kill_something_info -> kill_pid_info ->
 * __send_signal_locked), the SIGCHLD an exiting process sends its parent (do_notify_parent),
 * and delivery on the way back to user mode (get_signal: handler, ignore or do_group_exit).
 *
 * What probes see, as on 6.1:
 *  - signal:signal_generate(sig, info, task, group, result) from __send_signal_locked: `task` is
 *    the thread the signal is queued on, `group` is 1 for process-directed signals (PIDTYPE_TGID:
 *    kill(2), SIGCHLD), `result` TRACE_SIGNAL_DELIVERED (0) / IGNORED (1) / ALREADY_PENDING (2);
 *    `info` a struct kernel_siginfo (SI_USER with the sender's pid/uid for kill, CLD_EXITED /
 *    CLD_KILLED with the child's pid and status for SIGCHLD);
 *  - signal:signal_deliver(sig, info, ka) from get_signal for every dequeued signal, `ka` the
 *    struct k_sigaction in force (sa_handler 0 = SIG_DFL, 1 = SIG_IGN, else the handler);
 *  - do_exit/do_group_exit's `code`: the wait status (status << 8, or the signal number).
 */
import type { CpuMachine } from '../include/cpu';
import { Task, Process, SigHandler, TASK_INTERRUPTIBLE, TASK_STOPPED, TASK_DEAD } from '../include/sched';
import type { Env } from '../include/kstack';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { groupExitPath } from '../paths/entry';
import { wakeTasks } from './sched/core';
import { sigDefault, sigBit, SIGKILL, SIGCHLD, SIGCONT, USER_HANDLER } from '../include/signal';
import { kmem } from '../../kernel/memory';

/** The machine as signals use it: the process table of the layer above (lookup by pid, do_notify_parent's waiters). */
export interface SignalMachine extends CpuMachine {
  readonly procs: {
    readonly procs: Map<number, Process>;
    notifyParent(p: Process): Task[];
  };
}

const EINVAL = 22, ESRCH = 3, EINTR = 4;
const SI_USER = 0, CLD_EXITED = 1, CLD_KILLED = 2;

interface SigInfo { signo: number; code: number; pid: number; uid: number; status?: number }
/** the siginfo of each queued (pending) signal of a task, by signal number - 1 */
const queued = new WeakMap<Task, (SigInfo | undefined)[]>();

function siginfoAddr(i: SigInfo | undefined, sig: number): number {
  const T = 'struct kernel_siginfo';
  const a = kmem.allocStruct(T);
  kmem.setField(a, T, 'si_signo', sig);
  if (!i) return a;
  kmem.setField(a, T, 'si_code', i.code);
  if (i.status !== undefined) {
    kmem.setField(a, T, '_sifields._sigchld._pid', i.pid);
    kmem.setField(a, T, '_sifields._sigchld._uid', i.uid);
    kmem.setField(a, T, '_sifields._sigchld._status', i.status);
  } else {
    kmem.setField(a, T, '_sifields._kill._pid', i.pid);
    kmem.setField(a, T, '_sifields._kill._uid', i.uid);
  }
  return a;
}

function sigactionAddr(p: Process | undefined, sig: number): number {
  const T = 'struct k_sigaction';
  const a = kmem.allocStruct(T);
  const h = p?.sigHandlers.get(sig) ?? 'default';
  kmem.setField(a, T, 'sa.sa_handler', h === 'default' ? 0 : h === 'ignore' ? 1 : USER_HANDLER);
  return a;
}

export const signals = new Semantics<SignalMachine>('kernel/signal');

// ---------------------------------------------------------------- generation

/**
 * __send_signal_locked for a process-directed signal (PIDTYPE_TGID): the thread it is queued
 * on, the signal_generate result (TRACE_SIGNAL_DELIVERED 0, IGNORED 1, ALREADY_PENDING 2) and
 * the tasks complete_signal wakes.
 */
export function sendSignal(p: Process, sig: number): { target: Task | null; result: number; wake: Task[] } {
  const target = p.threads.find((x) => !(x.state & TASK_DEAD)) ?? p.threads[0] ?? null;
  const wake: Task[] = [];
  if (!target) return { target, result: 1, wake };
  const bit = sigBit(sig);
  const h = p.sigHandlers.get(sig) ?? 'default';
  const act = sigDefault(sig);
  // prepare_signal: SIGCONT resumes a stopped group whatever its disposition
  if (sig === SIGCONT) {
    for (const t of p.threads) if (t.state & TASK_STOPPED) { t.state = TASK_INTERRUPTIBLE; wake.push(t); }
  }
  // sig_ignored(): a blocked signal is never ignored (it may be unblocked later)
  if (sig !== SIGKILL && !(target.sigBlocked & bit) && (h === 'ignore' || (h === 'default' && act === 'ign'))) {
    return { target, result: 1, wake };
  }
  // legacy_queue(): a non-RT signal already pending is not queued twice
  if (sig < 32 && target.sigPending & bit) return { target, result: 2, wake };
  target.sigPending |= bit;
  if (!wake.includes(target) && (target.state & TASK_INTERRUPTIBLE || sig === SIGKILL)) { target.sigWoken = true; wake.push(target); }
  return { target, result: 0, wake };
}

/** The disposition of `sig` in process `p`. */
export function sigHandler(p: Process, sig: number): SigHandler {
  return p.sigHandlers.get(sig) ?? 'default';
}

/** kill(pid, sig): find the target (kill_something_info / kill_pid_info); 0, -ESRCH or -EINVAL. */
function killFind(m: SignalMachine, t: Task, e: Env): number {
  const pid = Number(e.a[0]);
  const sig = Number(e.a[1]);
  e.sgProc = null;
  if (!(sig >= 0 && sig <= 64)) { e.ret = -EINVAL; return H_CONT; }
  // pid 0: the caller's process group, pid < -1: group -pid (__kill_pgrp_info: every member)
  const pgrp = pid === 0 ? t.proc.pgid : pid < -1 ? -pid : 0;
  const group = pgrp ? [...m.procs.procs.values()].filter((x) => x.pgid === pgrp && !x.exited && x.tgid > 0) : [];
  const p = pid > 0 ? m.procs.procs.get(pid) : group[0];
  if (!p || p.exited) { e.ret = -ESRCH; return H_CONT; }
  e.ret = 0;
  if (sig === 0) return H_CONT; // permission / existence check only
  e.sgProc = p;
  e.sgGroup = group.slice(1);
  e.sgSig = sig;
  e.sgInfo = { signo: sig, code: SI_USER, pid: t.proc.tgid, uid: t.uid } satisfies SigInfo;
  return H_CONT;
}
signals.hook('kill_find', (m, _c, t, e) => killFind(m, t, e));
signals.syscall('kill', (m, _c, t, e) => killFind(m, t, e));
signals.cond('sigtarget', (_m, _c, _t, e) => e.sgProc != null);

/** The siginfo a queued signal carries to its delivery (signal_deliver's `info`). */
function queueInfo(target: Task, sig: number, info: SigInfo): void {
  let q = queued.get(target);
  if (!q) queued.set(target, (q = []));
  q[sig - 1] = info;
}
/** The task is its process's last live thread (exit_notify's check before telling the parent). */
const lastThread = (t: Task): boolean => t.tid === t.proc.tgid || !t.proc.threads.some((x) => x !== t && !(x.state & 0x80));

/** __send_signal_locked: queue the signal (or not) and note whom complete_signal wakes. */
signals.hook('sig_send', (_m, c, _t, e) => {
  // a recorded tree may call __send_signal_locked more than once (timeout's kill of the child and
  // of its group); the machine sends the one signal of this call once
  if (!e.sgProc || e.sgSent === e.sgProc) return H_CONT;
  if (e.recorded === true) e.sgSent = e.sgProc;
  e.sgDone = true;
  const wake: Task[] = [];
  // a process group's other members get the signal too (kill(0, sig), kill(-pgrp, sig))
  for (const p of [e.sgProc as Process, ...((e.sgGroup as Process[] | undefined) ?? [])]) {
    const r = sendSignal(p, e.sgSig as number);
    if (p === e.sgProc) { e.sgTarget = r.target; e.sgResult = r.result; }
    for (const w of r.wake) if (!wake.includes(w)) wake.push(w);
    if (r.result === 0 && r.target) queueInfo(r.target, e.sgSig as number, e.sgInfo as SigInfo);
  }
  e.sgWake = wake;
  const r = { wake };
  // in a recorded tree the wakeup is queued now for its try_to_wake_up (or the syscall's end): the
  // variant that runs may not reach complete_signal (its recording found the signal ignored)
  if (e.recorded === true) return wakeTasks(c, e, r.wake);
  return H_CONT;
});
signals.cond('sigqueued', (_m, _c, _t, e) => e.sgResult === 0);

/**
 * complete_signal's wakeup of the target (kernel/signal.c:1045-1075, include/linux/sched/signal.h
 * signal_wake_up): a signal fatal to the whole group (sig_fatal: default action, neither ignored,
 * stop nor core dump, not blocked; or SIGKILL) wakes with signal_wake_up(t, 1), state
 * TASK_WAKEKILL | __TASK_TRACED (0x108); any other with signal_wake_up(t, sig == SIGKILL).
 */
function wakeState(e: Env): number {
  const sig = (e.sgSig as number | undefined) ?? 0;
  const t = e.sgTarget as Task | null | undefined;
  if (sig === SIGKILL) return TASK_WAKEKILL | TASK_TRACED_BIT;
  if (!t || t.sigBlocked & (1 << (sig - 1))) return 0;
  return sigHandler(t.proc, sig) === 'default' && sigDefault(sig) === 'term' ? TASK_WAKEKILL | TASK_TRACED_BIT : 0;
}
const TASK_WAKEKILL = 0x100, TASK_TRACED_BIT = 0x8;
// complete_signal wakes the thread only for a signal it queued (prepare_signal found it not ignored)
signals.cond('sigwakes', (_m, _c, _t, e) => e.sgResult === 0 && e.sgTarget != null);
signals.inlineIf('signal_wake_up_state', 'sigwakes');
signals.inlineIf('signal_wake_up', 'sigwakes');
// the inline wakeups inside complete_signal take the thread the signal was queued on (not current)
signals.fnArgs('signal_wake_up_state', (_m, _c, t, e) => [(e.sgTarget as Task | null | undefined) ?? t, wakeState(e)]);
signals.fnArgs('signal_wake_up', (_m, _c, t, e) => [(e.sgTarget as Task | null | undefined) ?? t, wakeState(e) !== 0 ? 1 : 0]);
signals.fnArgs('complete_signal', (_m, _c, t, e) => [(e.sgSig as number | undefined) ?? 0, (e.sgTarget as Task | null | undefined) ?? t, 1]);
/** The task a signal is being sent to (before __send_signal_locked picked the thread: the group leader). */
function sigDest(t: Task, e: Env): Task {
  const tt = e.sgTarget as Task | null | undefined;
  if (tt) return tt;
  const p = e.sgProc as Process | null | undefined;
  return p?.threads.find((x) => !(x.state & TASK_DEAD)) ?? p?.threads[0] ?? t;
}
const sgSig = (e: Env): number => (e.sgSig as number | undefined) ?? 0;
const sgInfoAddr = (e: Env): number => siginfoAddr(e.sgInfo as SigInfo | undefined, sgSig(e));
// the sending chain's own arguments (kernel/signal.c): the signal, its siginfo, the destination
// task (not current), PIDTYPE_TGID (1) for process-directed signals
const PIDTYPE_TGID = 1;
signals.fnArgs('check_kill_permission', (_m, _c, t, e) => [sgSig(e), sgInfoAddr(e), sigDest(t, e)]);
signals.fnArgs('prepare_signal', (_m, _c, t, e) => [sgSig(e), sigDest(t, e), 0]);
signals.fnArgs('__send_signal_locked', (_m, _c, t, e) => [sgSig(e), sgInfoAddr(e), sigDest(t, e), PIDTYPE_TGID, 0]);
signals.fnArgs('send_signal_locked', (_m, _c, t, e) => [sgSig(e), sgInfoAddr(e), sigDest(t, e), PIDTYPE_TGID]);
signals.fnArgs('do_send_sig_info', (_m, _c, t, e) => [sgSig(e), sgInfoAddr(e), sigDest(t, e), PIDTYPE_TGID]);
signals.fnArgs('group_send_sig_info', (_m, _c, t, e) => [sgSig(e), sgInfoAddr(e), sigDest(t, e), PIDTYPE_TGID]);
signals.hook('sig_wake', (_m, c, _t, e) => (e.recorded === true ? H_CONT : wakeTasks(c, e, (e.sgWake as Task[] | undefined) ?? [])));

signals.tpArgs('signal_generate', (_m, _c, t, e) => {
  const sig = (e.sgSig as number | undefined) ?? 0;
  return [sig, siginfoAddr(e.sgInfo as SigInfo | undefined, sig), e.sgTarget ?? t, 1, (e.sgResult as number | undefined) ?? 0];
});

/**
 * do_notify_parent: SIGCHLD for the parent of an exiting process (none when the parent's
 * SIGCHLD disposition is SIG_IGN: the child is reaped at once, see %notify_parent).
 */
export function notifyPrep(t: Task, e: Env): void {
  e.sgProc = null;
  const p = t.proc;
  const par = p.parent;
  if (!p.exited || !par || par.exited) return;
  if (!lastThread(t)) return;
  if (par.sigHandlers.get(SIGCHLD) === 'ignore') return;
  const signaled = e.signaled === true;
  const sig = (e.sig as number | undefined) ?? 0;
  e.sgProc = par;
  e.sgSig = SIGCHLD;
  e.sgInfo = {
    signo: SIGCHLD, code: signaled ? CLD_KILLED : CLD_EXITED, pid: p.tgid, uid: t.uid,
    status: signaled ? sig : Number(e.a[0] ?? 0) & 0xff,
  } satisfies SigInfo;
}

/** __wake_up_parent: wake the parent's wait4 sleepers (not those the signal already woke). */
signals.hook('notify_parent', (m, c, t, e) => {
  e.parentNotified = true;
  if (!t.proc.exited || !lastThread(t)) return H_CONT;
  const woken = (e.sgWake as Task[] | undefined) ?? [];
  const w = m.procs.notifyParent(t.proc).filter((x) => !woken.includes(x));
  return wakeTasks(c, e, w);
});

/**
 * The end of an exit whose recorded tree lacked do_notify_parent's sending or __wake_up_parent (a
 * variant recorded with a parent that ignored SIGCHLD, or one that never slept in wait4): the
 * machine still owes its own parent the SIGCHLD and the wait4 wakeup, whatever tree ran.
 */
export function finishNotify(m: SignalMachine, t: Task, e: Env): Task[] {
  const wake: Task[] = [];
  if (e.sgProc && e.sgSig === SIGCHLD && !e.sgDone) {
    e.sgDone = true;
    const r = sendSignal(e.sgProc as Process, SIGCHLD);
    if (r.result === 0 && r.target) queueInfo(r.target, SIGCHLD, e.sgInfo as SigInfo);
    wake.push(...r.wake);
  }
  if (!e.parentNotified && t.proc.exited && lastThread(t)) {
    e.parentNotified = true;
    for (const w of m.procs.notifyParent(t.proc)) if (!wake.includes(w)) wake.push(w);
  }
  return wake;
}

// where the recorded paths do this work (kernel/signal.c, kernel/exit.c exit_notify)
signals.at('__send_signal_locked', 'sig_send');
signals.at('complete_signal', 'sig_wake');
signals.at('__wake_up_parent', 'notify_parent');

// ---------------------------------------------------------------- delivery

/**
 * get_signal's choice (templates/core.ts deliver_signal): the lowest pending signal not blocked, taken
 * off the pending set with its siginfo; whether it is fatal (then complete_signal made the group exit:
 * get_signal takes the SIGKILL it left, nothing queued to dequeue), queued (a sigqueue to free) or
 * handled (a frame to set up).
 */
signals.hook('signal_pick', (_m, _c, t, e) => {
  const pend = t.sigPending & ~t.sigBlocked;
  let sig = 0;
  for (let i = 0; i < 32; i++) if (pend & (1 << i)) { sig = i + 1; break; }
  e.dsig = sig;
  if (!sig) return H_CONT;
  t.sigPending &= ~(1 << (sig - 1));
  const q = queued.get(t);
  const info = q?.[sig - 1];
  if (q) q[sig - 1] = undefined;
  const h = sigHandler(t.proc, sig);
  const act = sig === SIGKILL ? 'term' : sigDefault(sig);
  e.dsigInfo = info;
  e.dsigHandled = typeof h === 'function' && sig !== SIGKILL;
  e.dsigFatal = !e.dsigHandled && !(h === 'ignore' || act === 'ign' || act === 'cont' || act === 'stop');
  return H_CONT;
});
signals.cond('sig_group_exit', (_m, _c, _t, e) => e.dsigFatal === true);
signals.cond('sig_queued', (_m, _c, _t, e) => e.dsigInfo !== undefined);
signals.cond('sig_handled', (_m, _c, _t, e) => e.dsigHandled === true);

/** get_signal's delivery of the picked signal: signal_deliver, then the handler, nothing, or do_group_exit. */
signals.hook('signal', (m, c, t, e) => {
  const sig = (e.dsig as number | undefined) ?? 0;
  if (!sig) return H_CONT;
  const h = sigHandler(t.proc, sig);
  if (e.dsigHandled === true && typeof h === 'function') h(sig);
  if (e.dsigFatal === true) {
    const exitPath = groupExitPath(m, t);
    if (!exitPath) throw new Error('entry model: no recorded exit_group (data/paths/entries.json.gz)');
    pushPath(t.ks, exitPath, newEnv('exit_group', { a: [128 + sig], sig, signaled: true, recorded: true }));
  }
  // frames run last-pushed first: signal_deliver fires before do_group_exit; a fatal signal is the
  // SIGKILL complete_signal left (trace_signal_deliver(SIGKILL, SEND_SIG_NOINFO, ...))
  pushPath(t.ks, 'signal_deliver', newEnv('signal_deliver', e.dsigFatal === true ? { sig: SIGKILL } : { sig, sgInfo: e.dsigInfo }));
  return H_PUSHED;
});

signals.tpArgs('signal_deliver', (_m, _c, t, e) => {
  const sig = (e.sig as number | undefined) ?? 0;
  return [sig, siginfoAddr(e.sgInfo as SigInfo | undefined, sig), sigactionAddr(t.proc, sig)];
});

// ---------------------------------------------------------------- exit codes

/** do_group_exit(exit_code) / do_exit(code): `(status & 0xff) << 8`, or the fatal signal. */
function exitCode(e: Env): number {
  return e.signaled === true ? Number(e.sig ?? 0) : (Number(e.a[0] ?? 0) & 0xff) << 8;
}
signals.fnArgs('do_group_exit', (_m, _c, _t, e) => [exitCode(e)]);
signals.fnArgs('do_exit', (_m, _c, _t, e) => [exitCode(e)]);

// ---------------------------------------------------------------- rt_sigaction

signals.syscall('rt_sigaction', (_m, _c, t, e) => {
  const sig = Number(e.a[0]);
  if (sig === SIGKILL || sig === 19 || sig < 1 || sig > 64) { e.ret = -EINVAL; return H_CONT; }
  // the old disposition (oldact), then the new one when one is given
  e.info = { old: t.proc.sigHandlers.get(sig) ?? 'default' };
  if (e.handler !== undefined) t.proc.sigHandlers.set(sig, e.handler as 'default');
  e.ret = 0;
  return H_CONT;
});
/** rt_sigprocmask(how, set, oldset): SIG_BLOCK 0, SIG_UNBLOCK 1, SIG_SETMASK 2 of the mask given as `set` (SIGKILL, SIGSTOP stay unblocked) */
signals.syscall('rt_sigprocmask', (_m, _c, t, e) => {
  const how = Number(e.a[0]);
  e.info = { old: t.sigBlocked };
  if (e.set !== undefined) {
    const set = Number(e.set) & ~((1 << (SIGKILL - 1)) | (1 << 18));
    if (how === 0) t.sigBlocked |= set;
    else if (how === 1) t.sigBlocked &= ~set;
    else if (how === 2) t.sigBlocked = set;
    else { e.ret = -EINVAL; return H_CONT; }
  }
  e.ret = 0;
  return H_CONT;
});

/**
 * rt_sigsuspend(mask) (kernel/signal.c sigsuspend): wait with `mask` (given as `set`) blocked until
 * a signal not blocked by it is pending; -EINTR (ERESTARTNOHAND, which a handler turns into EINTR).
 * The mask stays in force while the signal is delivered; the program's rt_sigreturn puts back the
 * one it had (the saved_sigmask restore_saved_sigmask does at the end of the handler).
 */
signals.syscall('rt_sigsuspend', (_m, _c, t, e) => {
  if (!e.slept) {
    e.slept = true;
    e.info = { old: t.sigBlocked };
    t.sigBlocked = Number(e.set ?? 0) & ~((1 << (SIGKILL - 1)) | (1 << 18));
  }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'sigsuspend';
  return H_SLEEP;
});
/** rt_sigreturn: the end of a handler; the mask of the interrupted code comes back (`set`, as the frame holds it). */
signals.syscall('rt_sigreturn', (_m, _c, t, e) => {
  if (e.set !== undefined) t.sigBlocked = Number(e.set) & ~((1 << (SIGKILL - 1)) | (1 << 18));
  e.ret = Number(e.restore ?? 0);
  return H_CONT;
});
