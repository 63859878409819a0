/**
 * What the entry model takes from a recording's strace run (scripts/record/FORMAT.md): which strace
 * process is which graph-run task, the syscall each recorded kernel entry was (by aligning the two
 * sequences of names), and the outcome class of each call.
 */
import type { Recording } from '../record/recording';
import { syscallFeatures, fileKindOfPath, FdKind } from '../../src/machine/paths/features';

/** strace's `-X raw` arguments split at top-level commas ('"a, b", [1, 2], {x=1}' -> 3 parts). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0, q = false, cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (q) {
      cur += ch;
      if (ch === '\\') { cur += s[++i] ?? ''; continue; }
      if (ch === '"') q = false;
      continue;
    }
    if (ch === '"') q = true;
    else if (ch === '[' || ch === '{' || ch === '(') depth++;
    else if (ch === ']' || ch === '}' || ch === ')') depth--;
    else if (ch === ',' && depth === 0) { out.push(cur.trim()); cur = ''; continue; }
    cur += ch;
  }
  if (cur.trim() || out.length) out.push(cur.trim());
  return out;
}

/** A number strace printed (decimal, 0x hex, 0 octal, NULL), else null. */
export function straceNumber(s: string): number | null {
  const t = s.trim();
  if (t === 'NULL') return 0;
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t, 16);
  if (/^0[0-7]+$/.test(t)) return parseInt(t, 8);
  return null;
}

/** The outcome class of a return: '0', '+' (positive), 'E:<ERRNO>' (an error), '?' (no return). */
export function retClass(ret: string): string {
  const m = /^-1 (E[A-Z0-9]+)/.exec(ret);
  if (m) return `E:${m[1]}`;
  const n = straceNumber(ret.split(' ')[0]);
  if (n === null) return '?';
  return n === 0 ? '0' : '+';
}

export interface StraceCall { name: string; args: string; ret: string; /** syscallFeatures() of the call */ feat: string }

/** A strace argument as a value: a number (flag words OR'ed: `0x1200000|17`), a string (quoted), else null. */
export function straceValue(a: string): number | string | null {
  const t = a.trim();
  if (t.startsWith('"')) {
    const end = t.lastIndexOf('"');
    return t.slice(1, end > 0 ? end : undefined).replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/gi, (_m, e: string) =>
      e[0] === 'x' ? String.fromCharCode(parseInt(e.slice(1), 16)) : /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8))
        : e === 'n' ? '\n' : e === 't' ? '\t' : e);
  }
  if (t.includes('|')) {
    let v = 0;
    for (const p of t.split('|')) { const n = straceNumber(p); if (n === null) return null; v |= n; }
    return v;
  }
  return straceNumber(t);
}

/** The result of a strace line as a number: the value, -errno for `-1 ENAME`, null for `?`. */
function straceRet(ret: string, errnos: Map<string, number>): number | null {
  const m = /^-1 (E[A-Z0-9_]+)/.exec(ret);
  if (m) return -(errnos.get(m[1]) ?? 1);
  return straceNumber(ret.split(' ')[0]);
}

/**
 * strace pid -> its syscalls in order, each with its features (a table of open descriptors per process
 * follows openat/pipe2/socket/dup2/fcntl/close and is copied at clone/fork/vfork; the root starts with
 * stdin /dev/null and stdout/stderr on the serial console, as the recorder runs workloads);
 * children in order of the clone/fork/vfork that made them.
 */
export function straceByPid(r: Recording, errnos: Map<string, number> = errnoNumbers()): {
  calls: Map<number, StraceCall[]>; children: Map<number, number[]>; root: number;
} {
  const calls = new Map<number, StraceCall[]>();
  const children = new Map<number, number[]>();
  const fds = new Map<number, Map<number, FdKind>>();
  /** pid -> the program it runs (its last successful execve; a child inherits its parent's) */
  const exes = new Map<number, string>();
  let root = -1;
  for (const [pid, , name, args, ret] of r.strace) {
    if (root < 0) { root = pid; fds.set(pid, new Map([[0, 'null'], [1, 'tty'], [2, 'tty']])); }
    if (name === '---' || name === '+++') continue;
    let tab = fds.get(pid);
    if (!tab) fds.set(pid, (tab = new Map()));
    const av = splitArgs(args).map(straceValue);
    const rv = straceRet(ret, errnos);
    const t = tab;
    const feat = syscallFeatures({ name, args: av, ret: rv, fdKind: (fd) => t.get(fd) ?? '-', exe: exes.get(pid) });
    let l = calls.get(pid);
    if (!l) calls.set(pid, (l = []));
    l.push({ name, args, ret, feat });
    const ok = rv !== null && rv >= 0;
    if ((name === 'clone' || name === 'clone3' || name === 'fork' || name === 'vfork') && ok && rv! > 0) {
      let k = children.get(pid);
      if (!k) children.set(pid, (k = []));
      k.push(rv!);
      fds.set(rv!, new Map(tab));
      const x = exes.get(pid);
      if (x !== undefined) exes.set(rv!, x);
    } else if (name === 'execve' && ok && typeof av[0] === 'string') {
      exes.set(pid, av[0]);
    } else if ((name === 'openat' || name === 'open' || name === 'creat') && ok) {
      // creat(path, mode) is open(path, O_CREAT|O_WRONLY|O_TRUNC, mode) (GNU tar creates its archive so)
      const p = av[name === 'openat' ? 1 : 0];
      const fl = name === 'creat' ? 0o1101 : av[name === 'openat' ? 2 : 1];
      tab.set(rv!, fileKindOfPath(typeof p === 'string' ? p : '', typeof fl === 'number' ? fl : 0));
    } else if (name === 'pipe2' || name === 'pipe') {
      const m = /\[(\d+), (\d+)\]/.exec(args);
      if (m && ok) { tab.set(Number(m[1]), 'pipe'); tab.set(Number(m[2]), 'pipe'); }
    } else if ((name === 'socket' || name === 'accept' || name === 'accept4') && ok) tab.set(rv!, 'sock');
    else if ((name === 'dup2' || name === 'dup3' || name === 'dup') && ok) tab.set(rv!, tab.get(av[0] as number) ?? '-');
    else if (name === 'fcntl' && ok && (av[1] === 0 || av[1] === 1030)) tab.set(rv!, tab.get(av[0] as number) ?? '-');
    else if (name === 'close' && typeof av[0] === 'number') tab.delete(av[0]);
  }
  return { calls, children, root };
}

/** errno name -> number (Linux x86_64). */
export function errnoNumbers(): Map<string, number> {
  const { errnoName } = require('../../src/kernel/errno') as typeof import('../../src/kernel/errno');
  const m = new Map<string, number>();
  for (let i = 1; i < 600; i++) { const n = errnoName(i); if (!/^E\d/.test(n)) m.set(n, i); }
  return m;
}

/** Graph-run task pid -> strace pid: the roots, then children in creation order, recursively. */
export function mapTasks(r: Recording): Map<number, number> {
  const { children, root } = straceByPid(r);
  const map = new Map<number, number>();
  const gkids = new Map<number, number[]>();
  let groot = -1;
  for (const t of r.tasks) {
    if (t.parent < 0) { if (groot < 0) groot = t.pid; continue; }
    let k = gkids.get(t.parent);
    if (!k) gkids.set(t.parent, (k = []));
    k.push(t.pid);
  }
  const walk = (g: number, s: number): void => {
    map.set(g, s);
    const gk = gkids.get(g) ?? [];
    const sk = children.get(s) ?? [];
    for (let i = 0; i < Math.min(gk.length, sk.length); i++) walk(gk[i], sk[i]);
  };
  if (groot >= 0 && root >= 0) walk(groot, root);
  return map;
}

/**
 * Align two name sequences (longest common subsequence): for each index of `a`, the index of `b` it
 * matches, or -1.
 */
export function alignNames(a: readonly string[], b: readonly string[]): Int32Array {
  const n = a.length, m = b.length;
  const dp = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i * (m + 1) + j] = a[i] === b[j] ? dp[(i + 1) * (m + 1) + j + 1] + 1
        : Math.max(dp[(i + 1) * (m + 1) + j], dp[i * (m + 1) + j + 1]);
    }
  }
  const out = new Int32Array(n).fill(-1);
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out[i] = j; i++; j++; }
    else if (dp[(i + 1) * (m + 1) + j] >= dp[i * (m + 1) + j + 1]) i++;
    else j++;
  }
  return out;
}
