/**
 * The system snapshot (raw/system/) to data/recordings/system.json.gz: what the machine needs to look
 * like the guest (modules and their symbols, mounts, partitions, network devices, the processes and
 * their maps) and the idle system's event rates (FORMAT.md, "System").
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { eventField, parseEventLine } from './events';
import { bump } from './intern';

function read(dir: string, f: string): string {
  const p = path.join(dir, f);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '';
}

/** /proc/interrupts or /proc/softirqs as label -> per-CPU counts (plus the description for IRQs) */
export function parseCpuTable(text: string): Map<string, { counts: number[]; desc: string }> {
  const out = new Map<string, { counts: number[]; desc: string }>();
  const lines = text.split('\n').filter((l) => l.trim());
  if (!lines.length) return out;
  const ncpu = lines[0].trim().split(/\s+/).length;
  for (const l of lines.slice(1)) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(l);
    if (!m) continue;
    const parts = m[2].trim().split(/\s+/);
    const counts = parts.slice(0, ncpu).map(Number).filter((n) => !Number.isNaN(n));
    out.set(m[1].trim(), { counts, desc: parts.slice(counts.length).join(' ') });
  }
  return out;
}

function cpuTableDelta(before: string, after: string): Record<string, { perCpu: number[]; desc?: string }> {
  const a = parseCpuTable(before);
  const b = parseCpuTable(after);
  const out: Record<string, { perCpu: number[]; desc?: string }> = {};
  for (const [k, v] of b) {
    const prev = a.get(k)?.counts ?? [];
    const perCpu = v.counts.map((n, i) => n - (prev[i] ?? 0));
    if (perCpu.some((n) => n !== 0)) out[k] = v.desc ? { perCpu, desc: v.desc } : { perCpu };
  }
  return out;
}

/** the field that names what an event is about, for the idle breakdowns */
const KEY_FIELD: Record<string, string> = {
  workqueue_execute_start: 'function', workqueue_queue_work: 'function', timer_expire_entry: 'function',
  hrtimer_expire_entry: 'function', irq_handler_entry: 'name', softirq_entry: 'action', softirq_raise: 'action',
  sched_switch: 'prev_comm', sched_wakeup: 'comm', sched_waking: 'comm', rcu_utilization: 's',
};

export interface IdleRates {
  seconds: number;
  /** event -> events per second (all tasks, all CPUs) */
  rates: Record<string, number>;
  counts: Record<string, number>;
  /** event -> comm of the task it hit -> count */
  byComm: Record<string, Record<string, number>>;
  /** event -> its key field's value (function, name, action, ...) -> count */
  byKey: Record<string, Record<string, number>>;
  interrupts: Record<string, { perCpu: number[]; desc?: string }>;
  softirqs: Record<string, { perCpu: number[] }>;
  dropped: number;
}

export function idleRates(traceText: string, meta: string, irqs: [string, string], softirqs: [string, string], dropped: number): IdleRates {
  const t0 = Number(/t0\t(\S+)/.exec(meta)?.[1] ?? 0);
  const t1 = Number(/t1\t(\S+)/.exec(meta)?.[1] ?? 0);
  const seconds = Math.max(1e-9, t1 - t0);
  const counts: Record<string, number> = {};
  const byComm = new Map<string, Map<string, number>>();
  const byKey = new Map<string, Map<string, number>>();
  for (const line of traceText.split('\n')) {
    const e = parseEventLine(line);
    if (!e) continue;
    counts[e.event] = (counts[e.event] ?? 0) + 1;
    let m = byComm.get(e.event);
    if (!m) byComm.set(e.event, (m = new Map()));
    bump(m, e.comm);
    const kf = KEY_FIELD[e.event];
    const kv = kf ? eventField(e.fields, kf) : undefined;
    if (kv !== undefined) {
      let k = byKey.get(e.event);
      if (!k) byKey.set(e.event, (k = new Map()));
      bump(k, kv);
    }
  }
  const obj = (m: Map<string, Map<string, number>>): Record<string, Record<string, number>> =>
    Object.fromEntries([...m].sort().map(([k, v]) => [k, Object.fromEntries([...v].sort((a, b) => b[1] - a[1]))]));
  const rates = Object.fromEntries(Object.entries(counts).sort().map(([k, v]) => [k, Math.round((v / seconds) * 100) / 100]));
  const si = cpuTableDelta(softirqs[0], softirqs[1]);
  return {
    seconds: Math.round(seconds * 1000) / 1000, rates, counts: Object.fromEntries(Object.entries(counts).sort()),
    byComm: obj(byComm), byKey: obj(byKey), interrupts: cpuTableDelta(irqs[0], irqs[1]),
    softirqs: Object.fromEntries(Object.entries(si).map(([k, v]) => [k, { perCpu: v.perCpu }])), dropped,
  };
}

/** dropped + overrun events in a buffer_stats file */
export function droppedEvents(stats: string): number {
  let n = 0;
  for (const m of stats.matchAll(/^(?:overrun|dropped events): (\d+)/gm)) n += Number(m[1]);
  return n;
}

export function convertSystem(raw: string): Record<string, unknown> {
  const ks = read(raw, 'kallsyms').split('\n').filter(Boolean);
  const modSyms = ks.filter((l) => l.includes('\t['));
  const vmlinux = ks.filter((l) => !l.includes('\t['));
  const idleDir = path.join(raw, 'idle');
  const idleTrace = fs.existsSync(path.join(idleDir, 'trace.gz')) ? zlib.gunzipSync(fs.readFileSync(path.join(idleDir, 'trace.gz'))).toString('utf8') : '';
  const idle = idleRates(idleTrace, read(idleDir, 'meta'), [read(idleDir, 'interrupts.before'), read(idleDir, 'interrupts.after')],
    [read(idleDir, 'softirqs.before'), read(idleDir, 'softirqs.after')], droppedEvents(read(idleDir, 'buffer_stats')));
  const net: Record<string, Record<string, string>> = {};
  for (const l of read(raw, 'net').split('\n')) {
    const [dev, attr, ...v] = l.split('\t');
    if (!dev || !attr || dev === '*') continue;
    (net[dev] ??= {})[attr] = v.join('\t');
  }
  return {
    format: 1,
    uname: read(raw, 'uname').trim(), version: read(raw, 'version').trim(), cmdline: read(raw, 'cmdline').trim(),
    clocksource: read(raw, 'clocksource').trim(),
    modules: read(raw, 'modules'), sysModule: read(raw, 'sys_module').split('\n').filter(Boolean),
    kallsyms: {
      modules: modSyms.join('\n') + '\n', vmlinuxCount: vmlinux.length,
      vmlinuxSha256: crypto.createHash('sha256').update(vmlinux.join('\n')).digest('hex'),
    },
    mounts: read(raw, 'mounts'), mountinfo: read(raw, 'mountinfo'), partitions: read(raw, 'partitions'),
    swaps: read(raw, 'swaps'), meminfo: read(raw, 'meminfo'), cpuinfo: read(raw, 'cpuinfo'), vmstat: read(raw, 'vmstat'),
    interrupts: read(raw, 'interrupts'), softirqs: read(raw, 'softirqs'), stat: read(raw, 'stat'),
    net, netLs: read(raw, 'net.ls'), rootdir: read(raw, 'rootdir'), ps: read(raw, 'ps'), services: read(raw, 'services'),
    dmesg: read(raw, 'dmesg'), idle,
  };
}

/**
 * procs.json.gz: every process of the snapshot with its /proc files (recorder.sh snapshot_system:
 * maps/PID, maps/PID.smaps, .stat, .status): the boot services' address spaces and counters.
 */
export function convertProcs(raw: string): { format: 1; procs: Record<string, Record<string, string>> } {
  const procs: Record<string, Record<string, string>> = {};
  const dir = path.join(raw, 'maps');
  if (fs.existsSync(dir)) {
    for (const f of fs.readdirSync(dir).sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b))) {
      const [pid, kind = 'maps'] = f.split('.');
      if (/^\d+$/.test(pid) && ['maps', 'smaps', 'stat', 'status'].includes(kind)) (procs[pid] ??= {})[kind] = read(dir, f);
    }
  }
  return { format: 1, procs };
}
