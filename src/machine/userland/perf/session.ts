/**
 * What the perf subcommands share (tools/perf/util/evlist.c, parse-events.c in miniature): event
 * names to perf_event_attr (tracepoint ids read from tracefs, globs expanded), perf_event_open(2)
 * and ioctl(2) calls, and the workload started as evlist__prepare_workload does (a forked child
 * blocked on a pipe until the events are open on it, then exec'd).
 */
import type { U } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import type { PerfEventAttr } from '../../kernel/perf_event_open';
import { readText, listDir, which } from '../libfs';
import { PERF_FORMAT_TOTAL_TIME_ENABLED, PERF_FORMAT_TOTAL_TIME_RUNNING } from '../../kernel/perf_event_open';
import { parseEventName, splitEvents, globRe, EventSpec } from './events';

type G<T> = Generator<Op, T, SysResult>;

export const T = '/sys/kernel/tracing';

/** Every tracepoint as "system:event", sorted as perf list sorts them. */
export function* allTracepoints(u: U): G<string[]> {
  const out: string[] = [];
  for (const sys of yield* listDir(u, `${T}/events`)) {
    if (sys === 'enable' || sys === 'header_page' || sys === 'header_event' || sys === 'ftrace') continue;
    for (const ev of yield* listDir(u, `${T}/events/${sys}`)) {
      if (ev === 'enable' || ev === 'filter') continue;
      out.push(`${sys}:${ev}`);
    }
  }
  return out.sort();
}

/** One event to open: its printed name and attr (null: the machine cannot count it). */
export interface OpenSpec { name: string; attr: PerfEventAttr | null; sw: boolean; clock: boolean }

export function baseAttr(type: number, config: number): PerfEventAttr {
  return {
    type, config, sample: 0, freq: false, callchain: false, raw: false,
    readFormat: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
    disabled: true, inherit: true, enableOnExec: false,
  };
}

/** -e arguments to events (tracepoint globs expanded); a string: the name perf cannot parse. */
export function* resolveEvents(u: U, args: string[]): G<OpenSpec[] | string> {
  const out: OpenSpec[] = [];
  for (const a of args) {
    for (const name of splitEvents(a)) {
      const spec: EventSpec | null = parseEventName(name);
      if (!spec) return name;
      if (spec.kind === 'sw') out.push({ name, attr: baseAttr(1, spec.config), sw: true, clock: spec.config <= 1 });
      else if (spec.kind === 'hw') out.push({ name, attr: baseAttr(0, spec.config), sw: false, clock: false });
      else {
        const sre = globRe(spec.system), ere = globRe(spec.event);
        const names = (yield* allTracepoints(u)).filter((n) => { const [s, e] = n.split(':'); return sre.test(s) && ere.test(e); });
        if (!names.length) return name;
        for (const n of names) {
          const [s, e] = n.split(':');
          const id = parseInt((yield* readText(u, `${T}/events/${s}/${e}/id`)) ?? '', 10);
          if (!Number.isFinite(id)) return name;
          out.push({ name: n, attr: baseAttr(2, id), sw: false, clock: false });
        }
      }
    }
  }
  return out;
}

export function* perfEventOpen(u: U, attr: PerfEventAttr, pid: number, cpu: number): G<number> {
  return (yield* u.sys('perf_event_open', [0x7ffc0000e000, pid, cpu, -1, 8 /* PERF_FLAG_FD_CLOEXEC */], { attr })).ret;
}

export function* ioctl(u: U, fd: number, cmd: number): G<number> {
  return (yield* u.sys('ioctl', [fd, cmd, 0])).ret;
}


/** A forked child blocked until `go()`, then exec'ing the command (evlist__prepare_workload). */
export interface Workload { pid: number; go(): G<void> }
export function* prepareWorkload(u: U, argv: string[]): G<Workload | null> {
  const path = yield* which(u, argv[0]);
  if (!path) { yield* u.err(`Workload failed: No such file or directory\n`); return null; }
  const [r, w] = yield* u.pipe();
  const pid = yield* u.fork(function* (cu: U): Prog {
    yield* cu.close(w);
    yield* cu.read(r, 1);
    yield* cu.close(r);
    yield* cu.exec(path, argv);
    yield* cu.err(`Workload failed: No such file or directory\n`);
    return 127;
  });
  yield* u.close(r);
  return {
    pid,
    go: function* () { yield* u.write(w, '\0'); yield* u.close(w); },
  };
}

export function* eventSyntaxError(u: U, name: string, usage: () => G<number>): G<number> {
  yield* u.err(`event syntax error: '${name}'\n${' '.repeat(21)}\\___ parser error\nRun 'perf list' for a list of valid events\n`);
  return yield* usage();
}

/** The number of CPUs (tracefs per_cpu/). */
export function* cpuCount(u: U): G<number> {
  return (yield* listDir(u, `${T}/per_cpu`)).filter((n) => /^cpu\d+$/.test(n)).length || 1;
}
