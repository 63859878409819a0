/**
 * The simulated side of the fidelity measure: run a workload command on tapsim's machine (the default
 * 4-CPU system, as `stap -c` does: `procs.spawnCommand`) and count, for the workload's tasks, every
 * kernel function entered (an ftrace_ops on every function, as set_ftrace_pid + function tracing on the
 * real box), every tracepoint event (a probe on each tracepoint; syscalls:sys_enter_X/sys_exit_X from the
 * raw syscall tracepoints as trace_syscalls.c does) and the syscall-name sequence.
 * The workload is launched as the recorder launched it (scripts/record/guest/recorder.sh `launch`): a
 * child of a shell that execs dash, `sh -c 'read x < /tmp/rec-go; exec "$@"' rec CMD...`, whose
 * `exec` then replaces dash's address space with the workload (the teardown the recorded execve does).
 * Its stdin is /dev/null, its stdout and stderr the serial console /dev/ttyS0 (the machine's 16550A,
 * drivers/serial8250.ts), whose line gives `output`.
 * Before it, the machine goes through what the recorder's `run_setup` did before each traced run: SETUP,
 * then (`warmUp`: unless the workload is flagged `cold` or `background`) one untraced run of the
 * workload in the traced run's form and SETUP again, then `sync; sleep 0.5` (see runSetup).
 * Counting starts at the root's execve of the workload (the launcher's own exec of sh is not counted),
 * restarting at each attempt of dash's PATH search until one succeeds, as in the recordings
 * (scripts/record/FORMAT.md, graph.ts / events.ts); for a `background` workload (every task counted),
 * at the recorder's open of the launcher's fifo (backgroundRecorderScript).
 * Uses src/kernel's ftrace and tracepoint machinery and the Machine's public API only.
 */
import { FtraceOps, FTRACE_OPS_FL_INITIALIZED, ftraceHitFn, registerFtraceFunction, unregisterFtraceFunction } from '../src/kernel/ftrace';
import { symbolName } from '../src/kernel/kallsyms';
import { syscallByNr } from '../src/kernel/syscalls';
import { tracepointNames, tracepointProbeRegister, tracepointProbeUnregister } from '../src/kernel/tracepoint';
import { Machine } from '../src/machine/machine';
import { MemCgroup } from '../src/machine/include/mm_types';
import { TASK_INTERRUPTIBLE, type Process, type Task } from '../src/machine/include/sched';
import { OpenFile, O_WRONLY, O_LARGEFILE } from '../src/machine/include/fs';
import { SIGINT, SIGQUIT } from '../src/machine/include/signal';
import type { FidelitySide } from './fidelity_measure';

export interface SimOptions {
  setup?: string;
  /**
   * run the recorder's untraced warm-up run of the workload before the traced one (run_setup; see
   * recorderWarmsUp for the recordings' flags that skip it)
   */
  warmUp?: boolean;
  /**
   * the traced run is the recording's events run: before it, in the same boot, the recorder ran the
   * workload's graph phase (SETUP, its warm-up, SETUP, the graph run), so the events run finds what two
   * more runs left (recorder.sh's three phases: a program's file pages referenced at its first exit are
   * activated at its second, and are active by the events run; see runSetup)
   */
  eventsRun?: boolean;
  /**
   * with `eventsRun`: what else the recording's boot ran between the workload's graph run and its events
   * phase that changed the machine's state (commands, untraced, in order): pagecache-miss's run_setup and
   * run when the boot recorded it too (its setup drops the page cache; recorder.sh runs every graph run of
   * the boot before the first events run; see bench/fidelity.ts bootBetweenRuns)
   */
  betweenRuns?: readonly string[];
  seed?: number;
  /** virtual-time limit of the workload, ns */
  maxNs?: number;
  /** count every task (the `background` recordings: the idle system) */
  allTasks?: boolean;
  /** run the workload in a memory cgroup with this memory.max, bytes (the recordings' `memcg=SIZE` flag) */
  memcgMax?: number;
  /** the CPU the launcher is forked on (a recording's: where its workload started; else one drawn) */
  cpu?: number;
  /** how many times slower than hardware the machine's CPUs run (MachineOptions.cpuSlowdown; default 1) */
  cpuSlowdown?: number;
}

/** A recording flag's size ('4M', '512K', '1G', bytes) in bytes. */
export function flagBytes(v: string): number {
  const m = /^(\d+)([KMG]?)$/i.exec(v);
  if (!m) return NaN;
  return Number(m[1]) * ({ '': 1, K: 1024, M: 1 << 20, G: 1 << 30 } as Record<string, number>)[m[2].toUpperCase()];
}

export interface SimResult extends FidelitySide {
  status: number; exited: boolean; virtualNs: number; output: string;
  /** on-CPU time of the workload's tasks from the counting start (Σ sum_exec_runtime), ns: fidelity_speed.ts */
  onCpuNs: number;
  /** calls per kernel entry (fidelity_measure.ts entry names: 'sys:NAME', 'fault', 'irq', 'other') */
  byEntry: Map<string, number>;
}

interface TaskLike { tid: number }
const tidOf = (t: unknown): number => (t && typeof t === 'object' && 'tid' in t ? (t as TaskLike).tid : -1);

/** recorder.sh's has_shell_syntax: any of ; & | < > ( ) $ ` \\ " ' * ? [ ] { } ~ = (run as `sh -c CMD`) */
export const hasShellSyntax = (command: string): boolean => /[;&|<>()$`\\"'*?[\]{}~=]/.test(command);

/**
 * The command as the recorder launched it (scripts/record/guest/recorder.sh launch): one with shell
 * syntax (any of ; & | < > ( ) $ ` \\ " ' * ? [ ] { } ~ =) through `sh -c CMD`, anything else exec'd
 * directly.  So a catalogue command `sh -c '...'` ran as sh -c "sh -c '...'": two shells, the
 * outer one vforking the inner.
 */
export function recorderCommand(command: string): string {
  return hasShellSyntax(command) ? `sh -c '${command.replace(/'/g, "'\\''")}'` : command;
}

/** The recorder's launcher script (recorder.sh launch): wait for the start line, then exec the workload. */
export const LAUNCHER_SCRIPT = 'read x < /tmp/rec-go; exec "$@"';
/** The file the launcher reads its start line from (a fifo in the recorder; see launcherArgv). */
export const LAUNCHER_GO = '/tmp/rec-go';
/** The file recorder.sh's `launch` switches tracing on and off with (`$T/tracing_on`, T=/sys/kernel/tracing). */
export const TRACING_ON = '/sys/kernel/tracing/tracing_on';

/**
 * The launcher's argv as the recorder's `launch` gave it: `sh -c SCRIPT rec sh -c CMD` for a command
 * with shell syntax, else `sh -c SCRIPT rec WORD...` (the command split at blanks with globbing off:
 * `set -f; ... rec $CMD`).
 */
export function launcherArgv(command: string): string[] {
  return ['sh', '-c', LAUNCHER_SCRIPT, 'rec', ...(hasShellSyntax(command) ? ['sh', '-c', command] : command.split(/[ \t\n]+/).filter(Boolean))];
}

/** recorder.sh's RUN_TIMEOUT as record.sh starts it (`${RUN_TIMEOUT:-300}`): the warm-up run's time limit, s */
export const RUN_TIMEOUT_S = 300;

/** Whether the recorder ran its untraced warm-up before a workload's traced runs (run_setup: `has cold`, `has background`). */
export function recorderWarmsUp(flags: readonly string[]): boolean {
  return !flags.includes('cold') && !flags.includes('background');
}

/** A word as a single-quoted shell word (the recorder's words reach timeout unexpanded: `set -f`, no quoting left). */
const shWord = (w: string): string => `'${w.replace(/'/g, "'\\''")}'`;

/**
 * The warm-up run as recorder.sh's run_setup starts it, in the traced run's form: `timeout RUN_TIMEOUT
 * sh -c CMD` for a command with shell syntax, else `timeout RUN_TIMEOUT WORD...` (the words, globbing
 * off), in /root with stdin /dev/null and stdout/stderr /dev/null.
 */
export function warmUpCommand(command: string): string {
  const words = launcherArgv(command).slice(4);
  return `cd /root && timeout ${RUN_TIMEOUT_S} ${words.map(shWord).join(' ')} < /dev/null > /dev/null 2>&1`;
}

/**
 * recorder.sh's run_setup on the machine: SETUP (untraced); with `warmUp` one untraced run of the
 * workload (warmUpCommand), then SETUP again; then `sync; sleep 0.5`. For the events run (`eventsRun`),
 * first the graph phase's: SETUP, the warm-up and SETUP, `sync; sleep 0.5`, the graph run (untraced here), then
 * what the boot ran between the two phases (`betweenRuns`). So the traced run finds what the
 * warm-up left, as in the recordings: the files it made (cp's target), programs, libraries and files in
 * the page cache, dentries, the kernel's once-made state (net_get_random_once's keys at the first
 * connect). (run_setup's `cleanup`, `umount /mnt/fill`, has nothing to undo: no catalogue setup mounts it.)
 */
function runSetup(m: Machine, command: string, o: SimOptions): void {
  // the events run's history (eventsRun): the graph phase's setup, warm-up and graph run, untraced here
  for (const before of o.eventsRun ? [true, false] : [false]) {
    if (o.setup) m.run(o.setup);
    if (o.warmUp) {
      m.run(warmUpCommand(command), (RUN_TIMEOUT_S + 1) * 1e9);
      if (o.setup) m.run(o.setup);
    }
    if (before) {
      m.run('sync; sleep 0.5');
      m.run(warmUpCommand(command), (RUN_TIMEOUT_S + 1) * 1e9);
      for (const c of o.betweenRuns ?? []) m.run(c, (RUN_TIMEOUT_S + 1) * 1e9);
    }
  }
  m.run('sync; sleep 0.5');
}

/** Where the machine's copy of the recorder's script lives (run by /sbin/recorder-run, as in the guest). */
const RECORDER_SH = '/root/rec/recorder.sh';

/**
 * The recorder's own processes, there while each workload runs (`ps aux` of the ps recording lists
 * them): the guest's boot runner `/bin/sh /sbin/recorder-run` (a session leader), the recorder.sh it
 * runs, and watch_start's time-limit watcher, a subshell of recorder.sh sleeping RUN_TIMEOUT (the
 * strace run's `strace` is left out: the graph and events runs have none).  They sleep through the run.
 */
function startRecorderProcesses(m: Machine): Process {
  startRecorder(m, `( sleep ${RUN_TIMEOUT_S}; true ) &\nwait\n`);
  // until the watcher's sleep is asleep (and so every recorder process: it is the last one started); on
  // a slowed-down CPU (cpuSlowdown) their start takes longer than the first 0.1 s
  const watcherAsleep = (): boolean => [...m.procs.procs.values()].some((p) => !p.exited && p.argv.join(' ') === `sleep ${RUN_TIMEOUT_S}` &&
    p.threads.every((t) => t.state === TASK_INTERRUPTIBLE && !t.onCpu));
  for (let i = 0; i < 100; i++) {
    m.run('sleep 0.1');
    if (watcherAsleep()) break;
  }
  const rec = [...m.procs.procs.values()].find((p) => !p.exited && p.argv.join(' ') === `sh ${RECORDER_SH}`);
  if (!rec) throw new Error('fidelity: the recorder processes did not start');
  return rec;
}

/**
 * The recorder's script (recorder.sh) as a file on the machine, and the boot runner that runs it in the
 * background.  Both files (and /root/rec) were on the guest's disk before it booted (scripts/record/record.sh
 * writes them into the image's rootfs): made in place, they leave no dirty data or metadata for the traced run's
 * writeback, journal commit or sync to write (the `sync` recording's sync wrote one block device page).
 */
function startRecorder(m: Machine, script: string): void {
  m.fs.mkdirp('/root/rec');
  m.fs.createFile(RECORDER_SH, script, 0o644, 'ext4');
  m.fs.createFile('/usr/sbin/recorder-run', `sh ${RECORDER_SH}\ntrue\n`, 0o644, 'ext4');
  m.run('/bin/sh /sbin/recorder-run < /dev/null > /dev/null 2>&1 &');
}

/**
 * recorder.sh's `launch` for a `background` workload, whose recordings count every task from the moment
 * tracing went on: the recorder forks the launcher itself, which waits in the fifo's open; the recorder
 * polls its wchan for `fifo_open` (which 6.1 never shows: the wait is wait_for_partner's, so the loop runs
 * its 100 rounds), starts the time-limit watcher, takes the start time (`date`), switches tracing on, then
 * opens the fifo (where counting starts), writes the start line
 * and waits for the launcher: what the recordings show of the recorder's shell (its echo's openat, fcntl,
 * dup2, write and close, then wait4) and of the launcher (the end of its open, its reads, its exec).
 */
export function backgroundRecorderScript(command: string): string {
  return [
    `rm -f ${LAUNCHER_GO}; mkfifo ${LAUNCHER_GO}`,
    'cd /root',
    `${launcherArgv(command).map(shWord).join(' ')} < /dev/null > /dev/ttyS0 2>&1 &`,
    'PID=$!',
    'cd /',
    'n=0; until grep -q fifo_open /proc/$PID/wchan 2>/dev/null || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done',
    `( sleep ${RUN_TIMEOUT_S}; true ) &`,
    'T0=$(date +%s.%N)',
    'echo 1 > /sys/kernel/tracing/tracing_on',
    `echo go > ${LAUNCHER_GO}`,
    'wait $PID; STATUS=$?',
    `echo 0 > ${TRACING_ON}`,
    'wait',
  ].join('\n') + '\n';
}

export function runSimulated(command: string, o: SimOptions = {}): SimResult {
  const m = new Machine({ cpus: 4, seed: o.seed ?? 1, memMB: 2048, cpuSlowdown: o.cpuSlowdown });
  runSetup(m, command, o);
  // a `background` workload is launched by the recorder's own script (backgroundRecorderScript), with
  // counting from the recorder's open of the fifo; any other, counted from its execve on, by the harness
  const background = o.allTasks === true;
  // the launcher is recorder.sh's asynchronous job: in the boot runner's session (ps: `R`, not `Rs`)
  const recorder = background ? null : startRecorderProcesses(m);
  // the launcher's start line: a file holding it, so its read returns at once (the recorder's fifo only
  // held the launcher until tracing was on; counting here starts exactly at the workload's execve)
  if (!background) m.fs.createFile(LAUNCHER_GO, 'go\n', 0o644, 'tmpfs');
  // the recorder launches into a settled system: every CPU idle (init's reaping of the setup's last shell
  // can still run at this point on a slowed-down CPU, cpuSlowdown, and would push the launcher off its CPU)
  m.runUntil(() => m.cpus.every((c) => m.current(c.id).idle), 1e9);
  const tids = new Set<number>();
  let root = -1;
  // the root has exec'd the launcher's sh (its next execve attempts are the workload's)
  let launcherUp = false;
  // the workload's execve succeeded (no more restarts)
  let execed = false;
  const fnCalls = new Map<number, number>();
  const events = new Map<string, number>();
  const syscalls: string[] = [];
  // per task, in creation order (Map keeps insertion order: the root, then each forked task)
  const perTask = new Map<number, string[]>();
  const EXECVE_NR = 59;
  const OPENAT_NR = 257;
  const WRITE_NR = 1;
  // (background) the recorder's shell has opened the fifo: counting (re)started there
  let armed = false;
  // the file an openat names (sys_enter's regs: its arguments, the name as the machine's syscall carries it)
  const openatPath = (regs: unknown): string => {
    const a = (regs as { args?: readonly unknown[] } | null)?.args?.[1];
    return typeof a === 'string' ? a : '';
  };
  // the recorder's shell itself (dash opens a simple command's redirections before it forks), the parent
  // of the launcher waiting in the fifo's open
  const launcherWaitsFor = (t: Task | undefined): boolean => !!t && [...m.procs.procs.values()].some((q) =>
    !q.exited && q.parent === t.proc && q.threads.some((x) => x.wchan === 'wait_for_partner'));
  // the kernel entry each task is in (sys_enter .. sys_exit, a user fault until its next entry)
  const entryOf = new Map<number, string>();
  const byEntry = new Map<string, number>();
  // the workload's tasks (for their on-CPU time) and their sum_exec_runtime when counting (re)started
  const taskObjs = new Map<number, Task>();
  const runtimeBase = new Map<number, number>();
  const reset = (): void => {
    fnCalls.clear(); events.clear(); syscalls.length = 0; byEntry.clear();
    runtimeBase.clear();
    for (const [tid, t] of taskObjs) runtimeBase.set(tid, t.sumExecRuntime);
    for (const [tid, l] of perTask) if (tids.has(tid)) l.length = 0; else perTask.delete(tid);
  };
  // (background) the recorder's shell opened tracing_on after its wait for the launcher (its `echo 0`):
  // the tid whose next write ends the counting, and whether it has (the recordings end in that write)
  let offWriter = -1;
  let stopped = false;
  const counted = (tid: number): boolean => !stopped && (o.allTasks || tids.has(tid));
  // each execve attempt of the workload (re)starts the counts (its first traced call of the attempt);
  // a `background` recording keeps every task from when tracing went on, just before the first attempt
  let restartedAt = -1;
  let attempts = 0;
  const restart = (): void => {
    if (restartedAt === attempts || (o.allTasks && restartedAt >= 0)) return;
    restartedAt = attempts;
    reset();
  };
  const currentTid = (): number => {
    const c = m.executingCpu();
    return c ? tidOf(c.ctx.task) : -1;
  };
  const execveFn = new Set(['__x64_sys_execve', '__x64_sys_execveat']);
  const op = new FtraceOps('fidelity_ops', (_ip, _pip, _op, _regs, ctx) => {
    const tid = tidOf(ctx.task);
    if (!counted(tid)) return;
    const fn = ftraceHitFn();
    if (launcherUp && !execed && tid === root && execveFn.has(symbolName(fn))) restart();
    fnCalls.set(fn, (fnCalls.get(fn) ?? 0) + 1);
    const b = ctx.context !== 0 ? 'irq' : entryOf.get(tid) ?? 'other';
    byEntry.set(b, (byEntry.get(b) ?? 0) + 1);
  }, FTRACE_OPS_FL_INITIALIZED, 'fidelity_call');
  const bump = (name: string): void => { events.set(name, (events.get(name) ?? 0) + 1); };
  const probes: [string, (...a: unknown[]) => void][] = [];
  for (const name of tracepointNames()) {
    let probe: (...a: unknown[]) => void;
    if (name === 'sched_process_fork') {
      probe = (_d, parent, child) => {
        if (counted(tidOf(parent)) || counted(currentTid())) { tids.add(tidOf(child)); perTask.set(tidOf(child), []); taskObjs.set(tidOf(child), child as Task); }
        if (counted(currentTid())) bump(name);
      };
    } else if (name === 'sys_enter' || name === 'sys_exit') {
      const enter = name === 'sys_enter';
      probe = (_d, _regs, nrOrRet) => {
        const tid = currentTid();
        if (!counted(tid)) return;
        const regs = _regs as { orig_ax?: number } | null;
        const nr = enter ? Number(nrOrRet) : Number(regs?.orig_ax ?? -1);
        if (enter && background && !armed && nr === OPENAT_NR && openatPath(regs) === LAUNCHER_GO && launcherWaitsFor(m.executingCpu()?.ctx.task as Task | undefined)) {
          armed = true;
          reset();
          restartedAt = attempts;
        }
        if (enter && background && armed && nr === OPENAT_NR && openatPath(regs) === TRACING_ON) offWriter = tid;
        if (!enter && tid === offWriter && nr === WRITE_NR) stopped = true;
        if (enter && launcherUp && !execed && tid === root && nr === EXECVE_NR) { attempts++; restart(); }
        const sc = syscallByNr(nr);
        entryOf.set(tid, enter ? `sys:${sc ? sc.name : nr}` : 'other');
        bump(name);
        if (sc) {
          bump(`${enter ? 'sys_enter_' : 'sys_exit_'}${sc.name}`);
          if (enter) {
            syscalls.push(sc.name);
            let l = perTask.get(tid);
            if (!l) perTask.set(tid, l = []);
            l.push(sc.name);
          }
        }
      };
    } else if (name === 'sched_process_exec') {
      probe = () => {
        const tid = currentTid();
        if (tid === root) {
          if (launcherUp) { execed = true; const t = taskObjs.get(root); if (t) t.boundCpu = -1; } else launcherUp = true;
        }
        if (counted(tid)) bump(name);
      };
    } else {
      const fault = name === 'page_fault_user';
      probe = () => {
        const tid = currentTid();
        if (!counted(tid)) return;
        if (fault) entryOf.set(tid, 'fault');
        bump(name);
      };
    }
    if (tracepointProbeRegister(name, probe as never, null) === 0) probes.push([name, probe]);
  }
  registerFtraceFunction(op);
  let output = '';
  let exited = false;
  let status = -1;
  const t0 = m.now;
  try {
    // the recorder's shell forks the launcher (`sh -c SCRIPT rec ... < /dev/null > /dev/ttyS0 2>&1 &`),
    // which execs dash in /root: stdout and stderr the serial console, whose line the output is read from
    // (ONLCR's carriage returns dropped)
    m.serial.sink = (s) => { output += s.replace(/\r\n/g, '\n'); };
    let p: Process;
    if (recorder) {
      const tty = new OpenFile('dev', m.fs.lookup('/dev/ttyS0'), O_WRONLY | O_LARGEFILE);
      // the recording's count starts at the workload's execve on the recorded CPU: the launcher stays there
      // until then, from its fork (the fork's placement or a wakeup on the way could move it, and with it
      // where the workload starts: cat and ls -l on CPU1, ttyS0's, took the serial interrupts the
      // recorded ones on CPU3 and CPU0 never saw)
      p = m.procs.spawnExec(recorder, '/bin/sh', launcherArgv(command), [m.fs.devNullFile(), tty, tty], '/root', o.cpu, true);
      tty.close();
    } else {
      startRecorder(m, backgroundRecorderScript(command));
      const launcher = (): Process | undefined => [...m.procs.procs.values()].find((q) => !q.exited && q.argv[2] === LAUNCHER_SCRIPT);
      m.runUntil(() => launcher() !== undefined, 60e9);
      const l = launcher();
      if (!l) throw new Error('fidelity: the recorder did not start the launcher');
      p = l;
    }
    // the recorder starts the workload as an asynchronous list of a non-interactive sh
    // (scripts/record/guest/recorder.sh launch: `sh -c '...; exec "$@"' ... &`), which runs it with
    // SIGINT and SIGQUIT ignored (POSIX 2.11; dash's forkchild): the recorded programs inherit that
    // (gzip's, dash's rt_sigaction queries return SIG_IGN in every recording)
    p.sigHandlers.set(SIGINT, 'ignore');
    p.sigHandlers.set(SIGQUIT, 'ignore');
    // as the recorder's in_memcg: the workload's root in a cgroup-v2 memory cgroup limited to memory.max
    if (o.memcgMax !== undefined) p.memcg = new MemCgroup('workload', Math.floor(o.memcgMax / 4096));
    root = p.tgid;
    tids.add(root);
    taskObjs.set(root, p.threads[0]);
    perTask.set(root, []);
    // (background) until the recorder's shell has switched tracing off, after its wait for the launcher
    m.runUntil(() => (background ? stopped : p.finished), o.maxNs ?? 120e9);
    exited = p.exited;
    status = p.exited ? p.exitCode : -1;
  } finally {
    unregisterFtraceFunction(op);
    for (const [name, probe] of probes) tracepointProbeUnregister(name, probe as never, null);
  }
  const functions = new Map<string, number>();
  for (const [fn, n] of fnCalls) {
    const name = symbolName(fn);
    functions.set(name, (functions.get(name) ?? 0) + n);
  }
  const tasks = [...perTask.values()];
  let onCpuNs = 0;
  for (const [tid, t] of taskObjs) onCpuNs += t.sumExecRuntime - (runtimeBase.get(tid) ?? 0);
  return { functions, events, syscalls, tasks, status, exited, virtualNs: m.now - t0, output, byEntry, onCpuNs };
}
