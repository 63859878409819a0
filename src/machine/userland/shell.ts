/**
 * A small POSIX-ish shell for `-c 'CMD'`: `;` `&&` `||` `|`, redirections (`<` `>` `>>` `2>` `2>&1`),
 * globs (`*` `?` `[..]`), quotes, `$$` `$?` `$VAR`, builtins cd/exit/export/kill/wait and (builtins.ts)
 * echo/printf/test/[, which run in the shell's process. Other commands are found on
 * /usr/bin, /usr/sbin, /bin, /sbin and run with fork + execve + wait4; as dash, the last command
 * of `sh -c` and a lone background command are exec'd without a fork.
 */
import type { U } from '../process/user';
import type { Prog } from '../include/sched';
import { O_CREAT, O_TRUNC, O_APPEND, O_WRONLY } from '../include/fs';
import { globToRegExp } from '../../kernel/kallsyms';
import { SHELL_BUILTINS } from './builtins';
import { defaultEnvironment, COMMAND_SEARCH_PATH } from './environment';

export interface Redir { fd: number; op: '<' | '>' | '>>' | '>&'; target: string }
export interface SimpleCmd { words: string[]; redirs: Redir[] }
export interface Pipeline { cmds: SimpleCmd[] }
export interface AndOr { first: Pipeline; rest: { op: '&&' | '||'; p: Pipeline }[]; bg?: boolean }

/** Tokenise and parse a command line into a list of and-or lists. */
export function parseShell(src: string, vars: (name: string) => string): AndOr[] {
  type Tok = { t: 'w'; v: string; glob: boolean } | { t: 'op'; v: string };
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === '\n') {
      // a newline ends a command (scripts), except after an operator that continues the line
      const last = toks[toks.length - 1];
      if (last && !(last.t === 'op' && ['&&', '||', '|', ';', '&'].includes(last.v))) toks.push({ t: 'op', v: ';' });
      i++;
      continue;
    }
    if (ch === ' ' || ch === '\t') { i++; continue; }
    if (ch === '#') { const nl = src.indexOf('\n', i); if (nl < 0) break; i = nl; continue; }
    const two = src.slice(i, i + 2);
    if (two === '&&' || two === '||' || two === '>>' || two === '2>' && src[i + 2] !== '&' || two === '>&') {
      if (two === '2>') { toks.push({ t: 'op', v: src[i + 2] === '>' ? '2>>' : '2>' }); i += src[i + 2] === '>' ? 3 : 2; continue; }
      toks.push({ t: 'op', v: two }); i += 2; continue;
    }
    if (src.slice(i, i + 4) === '2>&1') { toks.push({ t: 'op', v: '2>&1' }); i += 4; continue; }
    if (ch === '|' || ch === ';' || ch === '<' || ch === '>' || ch === '&') { toks.push({ t: 'op', v: ch }); i++; continue; }
    let w = '';
    let glob = false;
    while (i < src.length && !' \t\n|;<>&'.includes(src[i])) {
      const c = src[i];
      if (c === "'") { const j = src.indexOf("'", i + 1); w += src.slice(i + 1, j < 0 ? src.length : j); i = j < 0 ? src.length : j + 1; continue; }
      if (c === '"') {
        i++;
        while (i < src.length && src[i] !== '"') {
          // in double quotes a backslash escapes only $ ` " \ and newline; elsewhere it stays
          if (src[i] === '\\' && i + 1 < src.length) { w += '$`"\\\n'.includes(src[i + 1]) ? src[i + 1] : src.slice(i, i + 2); i += 2; continue; }
          if (src[i] === '$') { const r = expandVar(src, i, vars); w += r.v; i = r.next; continue; }
          w += src[i++];
        }
        i++;
        continue;
      }
      if (c === '\\' && i + 1 < src.length) { w += src[i + 1]; i += 2; continue; }
      if (c === '$') { const r = expandVar(src, i, vars); w += r.v; i = r.next; continue; }
      if (c === '*' || c === '?' || c === '[') glob = true;
      w += c;
      i++;
    }
    toks.push({ t: 'w', v: w, glob });
  }
  const lists: AndOr[] = [];
  let p = 0;
  const pipeline = (): Pipeline => {
    const cmds: SimpleCmd[] = [];
    let cur: SimpleCmd = { words: [], redirs: [] };
    while (p < toks.length) {
      const k = toks[p];
      if (k.t === 'op' && (k.v === '&&' || k.v === '||' || k.v === ';' || k.v === '&')) break;
      p++;
      if (k.t === 'op' && k.v === '|') { cmds.push(cur); cur = { words: [], redirs: [] }; continue; }
      if (k.t === 'op') {
        if (k.v === '2>&1') { cur.redirs.push({ fd: 2, op: '>&', target: '1' }); continue; }
        const tgt = toks[p++];
        if (!tgt || tgt.t !== 'w') throw new Error(`syntax error near unexpected token \`${tgt ? tgt.v : 'newline'}'`);
        const fd = k.v.startsWith('2') ? 2 : k.v === '<' ? 0 : 1;
        const op = k.v === '<' ? '<' : k.v.endsWith('>>') ? '>>' : '>';
        cur.redirs.push({ fd, op, target: tgt.v });
        continue;
      }
      cur.words.push(k.glob ? '\0' + k.v : k.v);
    }
    cmds.push(cur);
    return { cmds };
  };
  while (p < toks.length) {
    const first = pipeline();
    const rest: AndOr['rest'] = [];
    while (p < toks.length && toks[p].t === 'op' && (toks[p].v === '&&' || toks[p].v === '||')) {
      const op = toks[p++].v as '&&' | '||';
      rest.push({ op, p: pipeline() });
    }
    const list: AndOr = { first, rest };
    lists.push(list);
    if (p < toks.length && toks[p].t === 'op' && toks[p].v === '&') list.bg = true;
    while (p < toks.length && toks[p].t === 'op' && (toks[p].v === ';' || toks[p].v === '&')) p++;
  }
  return lists;
}

function expandVar(src: string, i: number, vars: (n: string) => string): { v: string; next: number } {
  const n = src[i + 1];
  if (n === '$' || n === '?' || n === '#' || n === '!') return { v: vars(n), next: i + 2 };
  if (n === '{') { const j = src.indexOf('}', i); return { v: vars(src.slice(i + 2, j)), next: j + 1 }; }
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i + 1));
  if (!m) return { v: '$', next: i + 1 };
  return { v: vars(m[0]), next: i + 1 + m[0].length };
}

const SEARCH = COMMAND_SEARCH_PATH;

/** Variable references are expanded when a command runs (so `$?` and `$!` see earlier commands). */
const VAR_OPEN = '\u0001', VAR_CLOSE = '\u0002';
const VAR_RE = /\u0001([^\u0002]*)\u0002/g;

type Op = import('../include/sched').Op;
type SysResult = import('../include/sched').SysResult;

/** The shell program. */
export function* sh(u: U, argv: string[]): Prog {
  const env: Record<string, string> = defaultEnvironment();
  let status = 0;
  /** background jobs (`cmd &`): pids not yet waited for, and `$!` */
  const jobs: number[] = [];
  let lastBg = 0;
  const ci = argv.indexOf('-c');
  let cmd = ci >= 0 ? argv[ci + 1] ?? '' : '';
  if (ci < 0) {
    // `sh FILE`: run a script; `sh`: commands from standard input
    const file = argv[1];
    const fd = file !== undefined ? yield* u.open(file) : 0;
    if (fd < 0) { yield* u.err(`sh: 0: cannot open ${file}: No such file\n`); return 2; }
    const b = yield* u.readAll(fd);
    if (file !== undefined) yield* u.close(fd);
    cmd = Buffer.from(b).toString('latin1');
  }
  const value = (n: string) => n === '$' ? String(u.pid) : n === '?' ? String(status) : n === '#' ? '0' : n === '!' ? (lastBg ? String(lastBg) : '') : env[n] ?? '';
  const subst = (w: string) => (w.includes(VAR_OPEN) ? w.replace(VAR_RE, (_m, n: string) => value(n)) : w);
  let lists: AndOr[];
  try {
    lists = parseShell(cmd, (n) => VAR_OPEN + n + VAR_CLOSE);
  } catch (e) {
    yield* u.err(`sh: 1: ${(e as Error).message}\n`);
    return 2;
  }
  const expand = function* (uu: U, words0: string[]): Generator<Op, string[], SysResult> {
    const out: string[] = [];
    for (const w0 of words0) {
      const w = subst(w0);
      if (!w.startsWith('\0')) { out.push(w); continue; }
      const pat = w.slice(1);
      const slash = pat.lastIndexOf('/');
      const dir = slash >= 0 ? pat.slice(0, slash) || '/' : '.';
      const base = slash >= 0 ? pat.slice(slash + 1) : pat;
      const fd = yield* uu.open(dir, 0o200000);
      let names: string[] = [];
      if (fd >= 0) { const r = yield* uu.getdents(fd); if (Array.isArray(r)) names = r; yield* uu.close(fd); }
      const re = globToRegExp(base);
      const hits = names.filter((n) => n !== '.' && n !== '..' && (!n.startsWith('.') || base.startsWith('.')) && re.test(n)).sort();
      if (!hits.length) out.push(pat);
      else for (const h of hits) out.push(slash >= 0 ? `${pat.slice(0, slash)}/${h}` : h);
    }
    return out;
  };
  const find = function* (uu: U, name: string): Generator<Op, string | null, SysResult> {
    if (name.includes('/')) return name;
    for (const d of SEARCH) {
      const st = yield* uu.stat(`${d}/${name}`);
      if (typeof st !== 'number' && st.isReg) return `${d}/${name}`;
    }
    return null;
  };
  /** open the redirections of a command in `cu` (false, with dash's message, when one fails) */
  const applyRedirs = function* (cu: U, redirs: Redir[]): Generator<Op, boolean, SysResult> {
    for (const r of redirs) {
      if (r.op === '>&') { yield* cu.dup2(Number(r.target), r.fd); continue; }
      const flags = r.op === '<' ? 0 : O_WRONLY | O_CREAT | (r.op === '>>' ? O_APPEND : O_TRUNC);
      const fd = yield* cu.open(r.target, flags, 0o644);
      if (fd < 0) { yield* cu.err(`sh: 1: cannot ${r.op === '<' ? 'open' : 'create'} ${r.target}: ${fd === -2 ? 'No such file' : 'Directory nonexistent'}\n`); return false; }
      yield* cu.dup2(fd, r.fd);
      yield* cu.close(fd);
    }
    return true;
  };
  const statusOf = (st: number) => (st & 0x7f ? 128 + (st & 0x7f) : (st >> 8) & 0xff);
  /**
   * `direct`: the shell has nothing left to do after this pipeline (dash's EV_EXIT: the last
   * command of `sh -c`, or a background job's subshell), so a lone external command is exec'd
   * in this process instead of fork + exec + wait.
   */
  const runPipeline = function* (uu: U, pl: Pipeline, direct = false): Generator<Op, number, SysResult> {
    // builtins (single command)
    if (pl.cmds.length === 1) {
      const words = yield* expand(uu, pl.cmds[0].words);
      if (words[0] === 'cd') {
        const r = yield* uu.chdir(words[1] ?? '/root');
        if (r < 0) { yield* uu.err(`sh: 1: cd: can't cd to ${words[1]}\n`); return 2; }
        return 0;
      }
      if (words[0] === 'exit') return -1000 - Number(words[1] ?? status);
      if (words[0] === 'export') { for (const w of words.slice(1)) { const [k, v] = w.split('='); env[k] = v ?? ''; } return 0; }
      if (words[0] === ':') return 0;
      if (words[0] === 'kill') return yield* killBuiltin(uu, words);
      if (words[0] === 'wait') {
        // wait [PID...]: the status of the last one waited for (127 for an unknown pid)
        const want = words.slice(1);
        let last = 0;
        if (!want.length) {
          while (jobs.length) { const pid = jobs.shift()!; yield* uu.wait(pid); }
          return 0;
        }
        for (const w of want) {
          const pid = Number(w.replace(/^%/, ''));
          const i = jobs.indexOf(pid);
          if (!(pid > 0) || i < 0) { last = 127; continue; }
          jobs.splice(i, 1);
          const [r, st] = yield* uu.wait(pid);
          last = r === pid ? statusOf(st) : 127;
        }
        return last;
      }
      if (words.length === 0) return 0;
      const bi = SHELL_BUILTINS[words[0]];
      if (bi && !direct) {
        // a builtin in the shell itself: its redirections are undone afterwards (saved fds from 10 up)
        const redirs = pl.cmds[0].redirs.map((r) => ({ ...r, target: subst(r.target) }));
        const saved: { fd: number; copy: number }[] = [];
        for (const r of redirs) {
          if (saved.some((x) => x.fd === r.fd)) continue;
          const copy = 10 + saved.length;
          saved.push({ fd: r.fd, copy: (yield* uu.dup2(r.fd, copy)) < 0 ? -1 : copy });
        }
        const s = (yield* applyRedirs(uu, redirs)) ? yield* bi(uu, words) : 2;
        for (const x of saved.reverse()) {
          if (x.copy < 0) { yield* uu.close(x.fd); continue; }
          yield* uu.dup2(x.copy, x.fd);
          yield* uu.close(x.copy);
        }
        return s;
      }
    }
    const pids: number[] = [];
    let prevRead = -1;
    for (let k = 0; k < pl.cmds.length; k++) {
      const c = pl.cmds[k];
      let pr = -1, pw = -1;
      if (k < pl.cmds.length - 1) [pr, pw] = yield* uu.pipe();
      const inFd = prevRead;
      const words = yield* expand(uu, c.words);
      const builtin = words.length ? SHELL_BUILTINS[words[0]] : undefined;
      const path = words.length && !builtin ? yield* find(uu, words[0]) : null;
      const redirs = c.redirs.map((r) => ({ ...r, target: subst(r.target) }));
      const child = function* (cu: U): Prog {
        if (inFd >= 0) { yield* cu.dup2(inFd, 0); yield* cu.close(inFd); }
        if (pw >= 0) { yield* cu.dup2(pw, 1); yield* cu.close(pw); yield* cu.close(pr); }
        if (!(yield* applyRedirs(cu, redirs))) return 2;
        if (!words.length) return 0;
        if (builtin) return yield* builtin(cu, words);
        if (!path) { yield* cu.err(`sh: 1: ${words[0]}: not found\n`); return 127; }
        const r = yield* cu.exec(path, words);
        yield* cu.err(`sh: 1: ${words[0]}: ${r === -2 ? 'not found' : 'Permission denied'}\n`);
        return r === -2 ? 127 : 126;
      };
      if (direct && pl.cmds.length === 1) return -1000 - (yield* child(uu));
      const pid = yield* uu.fork(child);
      if (inFd >= 0) yield* uu.close(inFd);
      if (pw >= 0) yield* uu.close(pw);
      prevRead = pr;
      pids.push(pid);
    }
    let last = 0;
    for (const pid of pids) {
      const [r, st] = yield* uu.wait(pid);
      if (r === pid && pid === pids[pids.length - 1]) last = statusOf(st);
    }
    return last;
  };
  /** one and-or list; a negative result below -1000 is `exit N` */
  const runAndOr = function* (uu: U, l: AndOr, direct = false): Generator<Op, number, SysResult> {
    let s = yield* runPipeline(uu, l.first, direct && !l.rest.length);
    if (s <= -1000) return s;
    for (const r of l.rest) {
      if ((r.op === '&&' && s === 0) || (r.op === '||' && s !== 0)) {
        s = yield* runPipeline(uu, r.p);
        if (s <= -1000) return s;
      }
    }
    return s;
  };
  for (let li = 0; li < lists.length; li++) {
    const l = lists[li];
    if (l.bg) {
      // `list &`: a subshell runs it; the shell goes on at once
      const pid = yield* u.fork(function* (cu: U): Prog {
        const s = yield* runAndOr(cu, l, true);
        return s <= -1000 ? -1000 - s : s;
      });
      if (pid > 0) { jobs.push(pid); lastBg = pid; }
      status = 0;
      continue;
    }
    // dash runs `sh -c`'s last command with EV_EXIT (no trap can be set here)
    const s = yield* runAndOr(u, l, ci >= 0 && li === lists.length - 1);
    if (s <= -1000) return -1000 - s;
    status = s;
  }
  return status;
}

const SIGNALS: Record<string, number> = {
  HUP: 1, INT: 2, QUIT: 3, ILL: 4, TRAP: 5, ABRT: 6, BUS: 7, FPE: 8, KILL: 9, USR1: 10, SEGV: 11, USR2: 12,
  PIPE: 13, ALRM: 14, TERM: 15, STKFLT: 16, CHLD: 17, CONT: 18, STOP: 19, TSTP: 20, TTIN: 21, TTOU: 22,
};

/** dash's kill builtin: `kill [-s SIG | -SIG | -N] PID...` (no fork: the shell calls kill(2)). */
function* killBuiltin(u: U, words: string[]): Generator<Op, number, SysResult> {
  const a = words.slice(1);
  let sig = 15;
  const named = (n: string) => (/^\d+$/.test(n) ? Number(n) : SIGNALS[n.toUpperCase().replace(/^SIG/, '')]);
  if (a[0] === '-s') { a.shift(); sig = named(a.shift() ?? '') ?? -1; }
  else if (a[0]?.startsWith('-') && a[0] !== '--') sig = named(a.shift()!.slice(1)) ?? -1;
  if (a[0] === '--') a.shift();
  if (sig < 0) { yield* u.err('sh: 1: kill: invalid signal number or name\n'); return 2; }
  if (!a.length) { yield* u.err('kill: usage: kill [-s sigspec | -signum | -sigspec] [pid | job]... or\nkill -l [exitstatus]\n'); return 2; }
  let st = 0;
  for (const p of a) {
    if (!/^-?\d+$/.test(p)) { yield* u.err(`sh: 1: kill: Illegal number: ${p}\n`); st = 2; continue; }
    const r = yield* u.kill(Number(p), sig);
    if (r < 0) { yield* u.err(`sh: 1: kill: ${r === -3 ? 'No such process' : r === -1 ? 'Operation not permitted' : 'Invalid argument'}\n`); st = 1; }
  }
  return st;
}
