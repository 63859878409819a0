/**
 * Time helpers: ctime() and ns -> s/ms/us splitting.
 */
import { Long, div } from './int64';
import { StapError } from './errors';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function two(n: number): string {
  return n < 10 ? '0' + n : '' + n;
}

/**
 * ctime(secs): `Thu Jan  1 00:00:00 1970` (UTC; `%.3s %.3s%3d %.2d:%.2d:%.2d %d`).
 * Only the int32 range is convertible.
 */
export function ctime(secs: Long): string {
  if (secs > 2147483647) throw new StapError('Time too far in the future to be converted');
  if (secs < -2147483648) throw new StapError('Time too far in the past to be converted');
  const d = new Date((secs as number) * 1000);
  const day = d.getUTCDate();
  return (
    DAYS[d.getUTCDay()] + ' ' + MONTHS[d.getUTCMonth()] + (day < 10 ? '  ' + day : ' ' + day) + ' ' +
    two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds()) + ' ' + d.getUTCFullYear()
  );
}

/** ns -> whole seconds / ms / us (C truncating division). */
export function nsToS(ns: Long): Long {
  return div(ns, 1000000000);
}
export function nsToMs(ns: Long): Long {
  return div(ns, 1000000);
}
export function nsToUs(ns: Long): Long {
  return div(ns, 1000);
}
