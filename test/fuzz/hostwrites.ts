/**
 * Host-write guard for fuzzing: wraps the fs and child_process calls that create, change or
 * remove files, or start programs, and records every one aimed outside the allowed directories
 * (the cache directory, the -o file, the sandbox the script files live in).  Used in the fuzz
 * workers and, through NODE_OPTIONS=--require, in child `stap` processes (see preload.ts).
 */
import * as path from 'path';

// the modules themselves (an `import * as` namespace object is read-only)
// eslint-disable-next-line @typescript-eslint/no-var-requires
const fs = require('fs') as typeof import('fs');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const cp = require('child_process') as typeof import('child_process');

export interface Guard {
  /** Directories (and files) writes may go to. */
  allowed: string[];
  /** Writes elsewhere, and program starts: "op path". */
  violations: string[];
}

export const guard: Guard = { allowed: [], violations: [] };

function inside(p: string): boolean {
  const abs = path.resolve(p);
  return guard.allowed.some((a) => abs === a || abs.startsWith(a.endsWith(path.sep) ? a : a + path.sep));
}

function check(op: string, p: unknown): void {
  if (typeof p === 'number') return; // an fd opened earlier (the open was checked)
  const s = p instanceof URL ? p.pathname : Buffer.isBuffer(p) ? p.toString('latin1') : String(p);
  if (!inside(s)) guard.violations.push(`${op} ${s}`);
}

/** Open flags that can create or change a file. */
function writes(flags: unknown): boolean {
  if (flags === undefined || flags === null) return false;
  if (typeof flags === 'number') return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND)) !== 0;
  return /[wa+]/.test(String(flags));
}

let installed = false;

export function installGuard(): void {
  if (installed) return;
  installed = true;
  const F = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const P = fs.promises as unknown as Record<string, (...a: unknown[]) => unknown>;
  const wrapPath = (obj: Record<string, (...a: unknown[]) => unknown>, name: string, nPaths = 1): void => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (this: unknown, ...a: unknown[]) {
      for (let i = 0; i < nPaths; i++) check(name, a[i]);
      return orig.apply(this, a);
    };
  };
  for (const n of ['writeFileSync', 'appendFileSync', 'mkdirSync', 'rmSync', 'rmdirSync', 'unlinkSync', 'truncateSync', 'chmodSync', 'chownSync',
    'utimesSync', 'mkdtempSync', 'writeFile', 'appendFile', 'mkdir', 'rm', 'rmdir', 'unlink', 'truncate', 'chmod', 'chown', 'utimes', 'mkdtemp']) wrapPath(F, n);
  for (const n of ['renameSync', 'copyFileSync', 'linkSync', 'symlinkSync', 'cpSync', 'rename', 'copyFile', 'link', 'symlink', 'cp']) wrapPath(F, n, 2);
  for (const n of ['writeFile', 'appendFile', 'mkdir', 'rm', 'rmdir', 'unlink', 'truncate', 'chmod', 'chown', 'utimes', 'mkdtemp']) wrapPath(P, n);
  for (const n of ['rename', 'copyFile', 'link', 'symlink', 'cp']) wrapPath(P, n, 2);
  for (const [obj, n] of [[F, 'openSync'], [F, 'open'], [P, 'open']] as const) {
    const orig = obj[n];
    obj[n] = function (this: unknown, ...a: unknown[]) {
      if (writes(a[1])) check(n, a[0]);
      return orig.apply(this, a);
    };
  }
  const ws = F.createWriteStream;
  F.createWriteStream = function (this: unknown, ...a: unknown[]) {
    check('createWriteStream', a[0]);
    return ws.apply(this, a);
  };
  const C = cp as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const n of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    const orig = C[n];
    C[n] = function (this: unknown, ...a: unknown[]) {
      guard.violations.push(`${n} ${String(a[0])}`);
      return orig.apply(this, a);
    };
  }
}
