/**
 * perf (linux-perf 6.1) inside the machine: stat, list, record, report, trace -s, version.
 * Like the real tool it works through perf_event_open(2) (src/machine/kernel/perf_event_open.ts),
 * ioctl(2) ENABLE/DISABLE and read(2) of the event fds, and reads tracepoint ids from tracefs.
 * The workload is started as perf does (evlist__prepare_workload): a child forked and blocked on a
 * pipe until the events are open on it (enable_on_exec), then exec'd.  Texts from the guest's
 * recordings (test/fixtures/tracefs-real/perf_*, scripts/tracefs/guest/part-perf.sh).
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE } from '../../kernel/perf_event_open';
import { swListLines, descriptorLines, listLine, globRe } from '../perf/events';
import { T, resolveEvents, prepareWorkload, perfEventOpen, ioctl, allTracepoints, eventSyntaxError, cpuCount } from '../perf/session';
import { formatStat, StatCount } from '../perf/stat_print';
import { perfRecord, perfReport, perfTrace } from './perf_record';

type G<T> = Generator<Op, T, SysResult>;

export const PERF_VERSION = '6.1.176';

const USAGE = `
 usage: perf [--version] [--help] [OPTIONS] COMMAND [ARGS]

 The most commonly used perf commands are:
   list            List all symbolic event types
   record          Run a command and record its profile into perf.data
   report          Read perf.data (created by perf record) and display the profile
   stat            Run a command and gather performance counter statistics
   trace           strace inspired tool
   version         display the version of perf binary

 See 'perf help COMMAND' for more information on a specific command.

`;

function* statUsage(u: U): G<number> {
  yield* u.err(`\n Usage: perf stat [<options>] [<command>]\n\n    -e, --event <event>   event selector. use 'perf list' to list available events\n`);
  return 129;
}

function u64At(b: Uint8Array, off: number): number {
  return Number(Buffer.from(b.buffer, b.byteOffset, b.byteLength).readBigUInt64LE(off));
}

const DEFAULT_STAT = ['task-clock', 'context-switches', 'cpu-migrations', 'page-faults', 'cycles', 'instructions', 'branches', 'branch-misses'];

function* stat(u: U, argv: string[]): G<number> {
  const evs: string[] = [];
  let all = false;
  let csv: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '-e' || a === '--event') evs.push(argv[++i] ?? '');
    else if (a.startsWith('-e') && a.length > 2) evs.push(a.slice(2));
    else if (a.startsWith('--event=')) evs.push(a.slice(8));
    else if (a === '-a' || a === '--all-cpus') all = true;
    else if (a === '-x' || a === '--field-separator') csv = argv[++i] ?? ',';
    else if (a.startsWith('-x') && a.length > 2) csv = a.slice(2);
    else if (a.startsWith('-')) { yield* u.err(`  Error: unknown switch \`${a.replace(/^-+/, '')}'\n`); return yield* statUsage(u); }
    else break;
  }
  const cmd = argv.slice(i);
  if (!cmd.length && !all) return yield* statUsage(u);
  const specs = yield* resolveEvents(u, evs.length ? evs : DEFAULT_STAT);
  if (typeof specs === 'string') return yield* eventSyntaxError(u, specs, () => statUsage(u));
  const work = cmd.length ? yield* prepareWorkload(u, cmd) : null;
  if (cmd.length && !work) return 127;
  const ncpus = yield* cpuCount(u);
  // per event: its fds (one per CPU with -a, one on the workload otherwise)
  const fds: number[][] = [];
  for (const s of specs) {
    const l: number[] = [];
    if (s.attr) {
      if (all) {
        for (let c = 0; c < ncpus; c++) {
          const fd = yield* perfEventOpen(u, { ...s.attr, inherit: false }, -1, c);
          if (fd >= 0) l.push(fd);
        }
      } else {
        const fd = yield* perfEventOpen(u, { ...s.attr, enableOnExec: true }, work!.pid, -1);
        if (fd >= 0) l.push(fd);
      }
    }
    fds.push(l);
  }
  if (all) for (const l of fds) for (const fd of l) yield* ioctl(u, fd, PERF_EVENT_IOC_ENABLE);
  const t0 = u.m.now;
  let rusage: { utime: number; stime: number } | undefined;
  let status = 0;
  if (work) {
    yield* work.go();
    const r = yield* u.sys('wait4', [work.pid, 0, 0, 0]);
    status = (r.info?.status as number) ?? 0;
    rusage = r.info?.rusage as { utime: number; stime: number } | undefined;
  }
  const elapsed = u.m.now - t0;
  const counts: StatCount[] = [];
  for (let k = 0; k < specs.length; k++) {
    let value: number | null = fds[k].length ? 0 : null;
    let running = 0;
    for (const fd of fds[k]) {
      yield* ioctl(u, fd, PERF_EVENT_IOC_DISABLE);
      const r = yield* u.read(fd, 24);
      if (r.ret >= 8 && r.data) { value = (value ?? 0) + u64At(r.data, 0); if (r.ret >= 24) running += u64At(r.data, 16); }
      yield* u.close(fd);
    }
    counts.push({ name: specs[k].name, value, running, clock: specs[k].clock, sw: specs[k].sw });
  }
  yield* u.err(formatStat({ target: cmd.length && !all ? cmd.join(' ') : 'system wide', counts, elapsedNs: elapsed, rusage: all ? undefined : rusage, csv }));
  return (status >> 8) & 0xff;
}

function* list(u: U, argv: string[]): G<number> {
  const what = argv.filter((a) => !a.startsWith('-'));
  let out = '';
  const tps = yield* allTracepoints(u);
  const tpLines = (f: (n: string) => boolean): string => tps.filter(f).map((n) => listLine(n, 'Tracepoint event')).join('');
  if (!what.length) out = swListLines() + descriptorLines() + tpLines(() => true);
  for (const w of what) {
    if (w === 'sw' || w === 'software') out += swListLines();
    else if (w === 'tracepoint') out += tpLines(() => true);
    else if (w === 'hw' || w === 'hardware' || w === 'cache' || w === 'pmu') out += '';
    else {
      const re = globRe(w);
      out += tpLines((n) => re.test(n));
    }
  }
  yield* u.out(out);
  return 0;
}

export const perf: ProgramMain = function* (u, argv) {
  const args = argv.slice(1);
  const cmd = args[0];
  if (cmd === '--version' || cmd === 'version' || cmd === '-v') { yield* u.out(`perf version ${PERF_VERSION}\n`); return 0; }
  if (cmd === undefined || cmd === '--help' || cmd === 'help') { yield* u.out(USAGE); return cmd === undefined ? 1 : 0; }
  const rest = args.slice(1);
  switch (cmd) {
    case 'stat': return yield* stat(u, rest);
    case 'list': return yield* list(u, rest);
    case 'record': return yield* perfRecord(u, rest);
    case 'report': return yield* perfReport(u, rest);
    case 'trace': return yield* perfTrace(u, rest);
    default:
      yield* u.err(`perf: '${cmd}' is not a perf-command. See 'perf --help'.\n`);
      return 1;
  }
};
