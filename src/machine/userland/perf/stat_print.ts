/**
 * perf stat's output (tools/perf/util/stat-display.c and stat-shadow.c of perf 6.1): the
 * "Performance counter stats for" block with its column layout, the task-clock's "CPUs utilized"
 * and the software events' rates per second of task-clock, <not supported> events, the elapsed
 * time and the workload's user and system time; -x CSV lines.  Layout measured on the guest's
 * output (test/fixtures/tracefs-real/perf_stat_*).
 */

export interface StatCount {
  name: string;
  /** null: <not supported> */
  value: number | null;
  /** time the event was enabled / running, ns */
  running: number;
  /** a clock event (value in ns, printed in msec) */
  clock: boolean;
  /** a software event (rated per second of task-clock) */
  sw: boolean;
}

export interface StatRun {
  target: string;
  counts: StatCount[];
  elapsedNs: number;
  /** user / system time of the workload, ns (absent with -a and no command) */
  rusage?: { utime: number; stime: number };
  csv?: string;
}

/** The shadow metric of a count: [value, unit] or null. */
function metric(c: StatCount, taskClockNs: number | null, elapsedNs: number): [number, string] | null {
  if (c.value === null) return null;
  if (c.clock) return elapsedNs > 0 ? [c.value / elapsedNs, 'CPUs utilized'] : null;
  if (!c.sw || taskClockNs === null) return null;
  const rate = taskClockNs > 0 ? (c.value / taskClockNs) * 1e9 : 0;
  if (rate >= 1e9) return [rate / 1e9, 'G/sec'];
  if (rate >= 1e6) return [rate / 1e6, 'M/sec'];
  if (rate >= 1e3) return [rate / 1e3, 'K/sec'];
  return [rate, '/sec'];
}

function row(c: StatCount, m: [number, string] | null): string {
  if (c.value === null) return `${'<not supported>'.padStart(18)}      ${c.name.padEnd(32)}${' '.repeat(28)}\n`;
  const v = c.clock ? (c.value / 1e6).toFixed(2) : String(c.value);
  const unit = c.clock ? 'msec' : '';
  const tail = m ? `# ${m[0].toFixed(3).padStart(8)} ${m[1].padEnd(23)}` : ' '.repeat(34);
  return `${v.padStart(18)} ${unit.padEnd(4)} ${c.name.padEnd(32)} ${tail}\n`;
}

function csvRow(c: StatCount, m: [number, string] | null, sep: string): string {
  const v = c.value === null ? '<not supported>' : c.clock ? (c.value / 1e6).toFixed(2) : String(c.value);
  const run = c.value === null ? '0' : String(c.running);
  const pct = c.value === null ? '100.00' : '100.00';
  return [v, c.clock ? 'msec' : '', c.name, run, pct, m ? m[0].toFixed(3) : '', m ? m[1] : ''].join(sep) + '\n';
}

const secs = (ns: number): string => (ns / 1e9).toFixed(9).padStart(18);

/** The whole report perf stat writes to stderr. */
export function formatStat(r: StatRun): string {
  const tc = r.counts.find((c) => c.name === 'task-clock' && c.value !== null);
  const taskClock = tc ? tc.value : null;
  if (r.csv !== undefined) {
    return r.counts.map((c) => csvRow(c, metric(c, taskClock, r.elapsedNs), r.csv as string)).join('');
  }
  let out = `\n Performance counter stats for '${r.target}':\n\n`;
  for (const c of r.counts) out += row(c, metric(c, taskClock, r.elapsedNs));
  out += `\n${secs(r.elapsedNs)} seconds time elapsed\n`;
  if (r.rusage) {
    // struct rusage has microseconds
    const us = (ns: number): number => Math.floor(ns / 1000) * 1000;
    out += `\n${secs(us(r.rusage.utime))} seconds user\n${secs(us(r.rusage.stime))} seconds sys\n\n`;
  }
  return out + '\n';
}
