/**
 * strftime(3) in the host's local time, for stapio's `-o FILE` names (FILE may hold conversions
 * such as `%Y%m%d-%H%M%S`, expanded when each output file is opened). C/POSIX locale.
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December'];

const pad = (n: number, w: number, c = '0') => String(n).padStart(w, c);

function dayOfYear(d: Date): number {
  const start = new Date(d.getFullYear(), 0, 1);
  return Math.round((Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(start.getFullYear(), 0, 1)) / 86400000) + 1;
}

function tzOffset(d: Date): string {
  const off = -d.getTimezoneOffset();
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60), 2)}${pad(a % 60, 2)}`;
}

function tzName(d: Date): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName');
  return part ? part.value : tzOffset(d);
}

/** Week number with weeks starting on `firstDay` (0 = Sunday for %U, 1 = Monday for %W). */
function weekNumber(d: Date, firstDay: number): number {
  const yday = dayOfYear(d) - 1;
  const wday = (d.getDay() - firstDay + 7) % 7;
  return Math.floor((yday + 7 - wday) / 7);
}

/** Expand `fmt` for the time `epochSec` (seconds since the epoch) in local time. */
export function strftimeLocal(fmt: string, epochSec: number): string {
  if (fmt.indexOf('%') < 0) return fmt;
  const d = new Date(epochSec * 1000);
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== '%' || i + 1 >= fmt.length) {
      out += c;
      continue;
    }
    const k = fmt[++i];
    const h12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
    switch (k) {
      case 'Y': out += d.getFullYear(); break;
      case 'C': out += pad(Math.floor(d.getFullYear() / 100), 2); break;
      case 'y': out += pad(d.getFullYear() % 100, 2); break;
      case 'm': out += pad(d.getMonth() + 1, 2); break;
      case 'd': out += pad(d.getDate(), 2); break;
      case 'e': out += pad(d.getDate(), 2, ' '); break;
      case 'H': out += pad(d.getHours(), 2); break;
      case 'k': out += pad(d.getHours(), 2, ' '); break;
      case 'I': out += pad(h12, 2); break;
      case 'l': out += pad(h12, 2, ' '); break;
      case 'M': out += pad(d.getMinutes(), 2); break;
      case 'S': out += pad(d.getSeconds(), 2); break;
      case 'p': out += d.getHours() < 12 ? 'AM' : 'PM'; break;
      case 'P': out += d.getHours() < 12 ? 'am' : 'pm'; break;
      case 'j': out += pad(dayOfYear(d), 3); break;
      case 'a': out += DAYS[d.getDay()].slice(0, 3); break;
      case 'A': out += DAYS[d.getDay()]; break;
      case 'b': case 'h': out += MONTHS[d.getMonth()].slice(0, 3); break;
      case 'B': out += MONTHS[d.getMonth()]; break;
      case 'u': out += d.getDay() === 0 ? 7 : d.getDay(); break;
      case 'w': out += d.getDay(); break;
      case 'U': out += pad(weekNumber(d, 0), 2); break;
      case 'W': out += pad(weekNumber(d, 1), 2); break;
      case 's': out += Math.floor(epochSec); break;
      case 'z': out += tzOffset(d); break;
      case 'Z': out += tzName(d); break;
      case 'D': out += strftimeLocal('%m/%d/%y', epochSec); break;
      case 'F': out += strftimeLocal('%Y-%m-%d', epochSec); break;
      case 'T': out += strftimeLocal('%H:%M:%S', epochSec); break;
      case 'R': out += strftimeLocal('%H:%M', epochSec); break;
      case 'r': out += strftimeLocal('%I:%M:%S %p', epochSec); break;
      case 'c': out += strftimeLocal('%a %b %e %H:%M:%S %Y', epochSec); break;
      case 'x': out += strftimeLocal('%m/%d/%y', epochSec); break;
      case 'X': out += strftimeLocal('%H:%M:%S', epochSec); break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '%': out += '%'; break;
      default: out += '%' + k; // glibc copies an unknown conversion as it is
    }
  }
  return out;
}
