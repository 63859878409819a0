/**
 * The simulated kernel's wall clock (CLOCK_REALTIME, Linux kernel/time/timekeeping.c): the
 * only clock a script sees.  A session starts at a fixed wall-clock time, 2025-11-21 04:40:00
 * UTC, when the machine's uptime is its default boot offset; `gettimeofday_*()`, `ctime()`
 * and `-o` file-name times are that plus the simulated time elapsed, so runs with the same
 * options and `--seed` print the same bytes.
 */

/** CLOCK_REALTIME (ns since the epoch) at the start of a session. */
export const SESSION_START_REALTIME_NS = 1763700000n * 1000000000n;
