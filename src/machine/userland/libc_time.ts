/**
 * The wall clock as the userland sees it (CLOCK_REALTIME: src/kernel/timekeeping.ts's session
 * start at the machine's boot offset, plus the simulated time since) and the time formats of the
 * C library and coreutils in the C locale, TZ UTC (the Debian guest's /etc/localtime): ls -l's
 * "Nov 21 04:40" / "Sep 20  2022" (a time more than six months from now shows its year), stat's
 * "2025-11-21 04:40:00.000000000 +0000", date's "Fri Nov 21 04:40:00 UTC 2025".
 */
import { SESSION_START_REALTIME_NS } from '../../kernel/timekeeping';

const SESSION_START_S = Number(SESSION_START_REALTIME_NS / 1000000000n);

/** seconds since the epoch of machine time `ns` (ns of uptime) on a machine booted `bootNs` before the session */
export function epochSeconds(bootNs: number, ns: number): number {
  return SESSION_START_S + Math.floor((ns - bootNs) / 1e9);
}
/** machine time (ns of uptime) of the wall-clock second `sec` */
export function machineNsOf(bootNs: number, sec: number): number {
  return (sec - SESSION_START_S) * 1e9 + bootNs;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** ls -l's time column: "Mon dd HH:MM", or "Mon dd  YYYY" when more than ~6 months away from now */
export function lsTime(sec: number, nowSec: number): string {
  const d = new Date(sec * 1000);
  const day = String(d.getUTCDate()).padStart(2, ' ');
  const recent = nowSec - sec < 31556952 / 2 && sec <= nowSec + 60;
  return `${MONTHS[d.getUTCMonth()]} ${day} ${recent ? `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}` : ` ${d.getUTCFullYear()}`}`;
}

/** stat(1)'s "%y": 2025-11-21 04:40:00.123456789 +0000 */
export function statTime(ns: number, bootNs: number): string {
  const sec = epochSeconds(bootNs, ns);
  const frac = Math.floor(((ns - bootNs) % 1e9 + 1e9) % 1e9);
  const d = new Date(sec * 1000);
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(frac).padStart(9, '0')} +0000`;
}

/** date(1) without a format: "Fri Nov 21 04:40:00 UTC 2025" */
export function dateString(sec: number): string {
  const d = new Date(sec * 1000);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** date +FORMAT: the conversions people use (%Y %m %d %H %M %S %s %F %T %a %b %e %j %Z %z %%) */
export function strftime(fmt: string, sec: number, ns = 0): string {
  const d = new Date(sec * 1000);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1) / 1000;
  const conv: Record<string, () => string> = {
    Y: () => String(d.getUTCFullYear()), m: () => p2(d.getUTCMonth() + 1), d: () => p2(d.getUTCDate()),
    e: () => String(d.getUTCDate()).padStart(2, ' '), H: () => p2(d.getUTCHours()), M: () => p2(d.getUTCMinutes()),
    S: () => p2(d.getUTCSeconds()), s: () => String(sec), N: () => String(ns).padStart(9, '0'),
    F: () => `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`,
    T: () => `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`,
    a: () => DAYS[d.getUTCDay()], b: () => MONTHS[d.getUTCMonth()], h: () => MONTHS[d.getUTCMonth()],
    j: () => String(Math.floor((sec - start) / 86400) + 1).padStart(3, '0'), Z: () => 'UTC', z: () => '+0000',
    y: () => p2(d.getUTCFullYear() % 100), u: () => String(d.getUTCDay() || 7), w: () => String(d.getUTCDay()),
    n: () => '\n', t: () => '\t', '%': () => '%',
  };
  return fmt.replace(/%(.)/g, (all, c: string) => (conv[c] ? conv[c]() : all));
}
