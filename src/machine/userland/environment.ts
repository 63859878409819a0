/**
 * The environment the simulated user's commands start with: what `sh -c` sees and what stap's
 * own word expansion of `-c COMMAND` (src/elaborate/wordexp.ts) resolves variables against.
 */
/** Debian 12's PATH for root (/etc/profile), as the recorded workloads ran with it */
export const COMMAND_SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

export function defaultEnvironment(): Record<string, string> {
  return { PATH: COMMAND_SEARCH_PATH.join(':'), HOME: '/root' };
}
