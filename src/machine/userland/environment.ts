/**
 * The environment the simulated user's commands start with: what `sh -c` sees and what stap's
 * own word expansion of `-c COMMAND` (src/elaborate/wordexp.ts) resolves variables against.
 */
export const COMMAND_SEARCH_PATH = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];

export function defaultEnvironment(): Record<string, string> {
  return { PATH: COMMAND_SEARCH_PATH.join(':'), HOME: '/root' };
}
