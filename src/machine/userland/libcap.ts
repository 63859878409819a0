/**
 * libcap 2.66's constructor as programs linked with it run it (ping, procps' ps through libsystemd):
 * the highest capability the kernel knows, found by a binary search of PR_CAPBSET_READ over 0..64
 * (strace of Debian 12: prctl(PR_CAPBSET_READ, 32) = 1, 48 EINVAL, 40 = 1, 44, 42, 41 EINVAL on 6.1).
 */
import type { U } from '../process/user';
import type { Op, SysResult } from '../include/sched';

const PR_CAPBSET_READ = 23;

/** cap_max_bits: the last capability the bounding set has */
export function* libcapInit(u: U): Generator<Op, number, SysResult> {
  let lo = 0;
  for (let hi = 64, mid = 32; hi - lo > 1; mid = (lo + hi) >> 1) {
    if ((yield* u.sys('prctl', [PR_CAPBSET_READ, mid, 0, 0, 0])).ret >= 0) lo = mid; else hi = mid;
  }
  return lo;
}
