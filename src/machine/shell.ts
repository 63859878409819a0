/**
 * A small POSIX-ish shell for `-c 'CMD'`: `;` `&&` `||` `|`, redirections (`<` `>` `>>` `2>` `2>&1`),
 * globs (`*` `?` `[..]`), quotes, `$$` `$?` `$VAR`, builtins cd/exit/export. Commands are found on
 * /usr/bin, /usr/sbin, /bin, /sbin and run with fork + execve + wait4.
 */
import type { U } from './user';
import type { Prog } from './task';
import { O_CREAT, O_TRUNC, O_APPEND, O_WRONLY } from './user';
import { globToRegExp } from '../kernel/kallsyms';

export interface Redir { fd: number; op: '<' | '>' | '>>' | '>&'; target: string }
export interface SimpleCmd { words: string[]; redirs: Redir[] }
export interface Pipeline { cmds: SimpleCmd[] }
export interface AndOr { first: Pipeline; rest: { op: '&&' | '||'; p: Pipeline }[] }

/** Tokenise and parse a command line into a list of and-or lists. */
export function parseShell(src: string, vars: (name: string) => string): AndOr[] {
  type Tok = { t: 'w'; v: string; glob: boolean } | { t: 'op'; v: string };
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === ' ' || ch === '\t' || ch === '\n') { i++; continue; }
    if (ch === '#') break;
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
          if (src[i] === '\\' && i + 1 < src.length) { w += src[i + 1]; i += 2; continue; }
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
    lists.push({ first, rest });
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

const SEARCH = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];

/** The shell program. */
export function* sh(u: U, argv: string[]): Prog {
  const env: Record<string, string> = { PATH: SEARCH.join(':'), HOME: '/root' };
  let status = 0;
  const ci = argv.indexOf('-c');
  const cmd = ci >= 0 ? argv[ci + 1] ?? '' : '';
  const vars = (n: string) => n === '$' ? String(u.pid) : n === '?' ? String(status) : n === '#' ? '0' : env[n] ?? '';
  let lists: AndOr[];
  try {
    lists = parseShell(cmd, vars);
  } catch (e) {
    yield* u.err(`sh: 1: ${(e as Error).message}\n`);
    return 2;
  }
  const expand = function* (words: string[]): Generator<import('./task').Op, string[], import('./task').SysResult> {
    const out: string[] = [];
    for (const w of words) {
      if (!w.startsWith('\0')) { out.push(w); continue; }
      const pat = w.slice(1);
      const slash = pat.lastIndexOf('/');
      const dir = slash >= 0 ? pat.slice(0, slash) || '/' : '.';
      const base = slash >= 0 ? pat.slice(slash + 1) : pat;
      const fd = yield* u.open(dir, 0o200000);
      let names: string[] = [];
      if (fd >= 0) { const r = yield* u.getdents(fd); if (Array.isArray(r)) names = r; yield* u.close(fd); }
      const re = globToRegExp(base);
      const hits = names.filter((n) => n !== '.' && n !== '..' && (!n.startsWith('.') || base.startsWith('.')) && re.test(n)).sort();
      if (!hits.length) out.push(pat);
      else for (const h of hits) out.push(slash >= 0 ? `${pat.slice(0, slash)}/${h}` : h);
    }
    return out;
  };
  const find = function* (name: string): Generator<import('./task').Op, string | null, import('./task').SysResult> {
    if (name.includes('/')) return name;
    for (const d of SEARCH) {
      const st = yield* u.stat(`${d}/${name}`);
      if (typeof st !== 'number' && st.isReg) return `${d}/${name}`;
    }
    return null;
  };
  const runPipeline = function* (pl: Pipeline): Generator<import('./task').Op, number, import('./task').SysResult> {
    // builtins (single command)
    if (pl.cmds.length === 1) {
      const words = yield* expand(pl.cmds[0].words);
      if (words[0] === 'cd') {
        const r = yield* u.chdir(words[1] ?? '/root');
        if (r < 0) { yield* u.err(`sh: 1: cd: can't cd to ${words[1]}\n`); return 2; }
        return 0;
      }
      if (words[0] === 'exit') return -1000 - Number(words[1] ?? status);
      if (words[0] === 'export') { for (const w of words.slice(1)) { const [k, v] = w.split('='); env[k] = v ?? ''; } return 0; }
      if (words[0] === ':') return 0;
      if (words.length === 0) return 0;
    }
    const pids: number[] = [];
    let prevRead = -1;
    for (let k = 0; k < pl.cmds.length; k++) {
      const c = pl.cmds[k];
      let pr = -1, pw = -1;
      if (k < pl.cmds.length - 1) [pr, pw] = yield* u.pipe();
      const inFd = prevRead;
      const words = yield* expand(c.words);
      const path = words.length ? yield* find(words[0]) : null;
      const pid = yield* u.fork(function* (cu: U): Prog {
        if (inFd >= 0) { yield* cu.dup2(inFd, 0); yield* cu.close(inFd); }
        if (pw >= 0) { yield* cu.dup2(pw, 1); yield* cu.close(pw); yield* cu.close(pr); }
        for (const r of c.redirs) {
          if (r.op === '>&') { yield* cu.dup2(Number(r.target), r.fd); continue; }
          const flags = r.op === '<' ? 0 : O_WRONLY | O_CREAT | (r.op === '>>' ? O_APPEND : O_TRUNC);
          const fd = yield* cu.open(r.target, flags, 0o644);
          if (fd < 0) { yield* cu.err(`sh: 1: cannot ${r.op === '<' ? 'open' : 'create'} ${r.target}: ${fd === -2 ? 'No such file' : 'Directory nonexistent'}\n`); return 2; }
          yield* cu.dup2(fd, r.fd);
          yield* cu.close(fd);
        }
        if (!words.length) return 0;
        if (!path) { yield* cu.err(`sh: 1: ${words[0]}: not found\n`); return 127; }
        const r = yield* cu.exec(path, words);
        yield* cu.err(`sh: 1: ${words[0]}: ${r === -2 ? 'not found' : 'Permission denied'}\n`);
        return r === -2 ? 127 : 126;
      });
      if (inFd >= 0) yield* u.close(inFd);
      if (pw >= 0) yield* u.close(pw);
      prevRead = pr;
      pids.push(pid);
    }
    let last = 0;
    for (const pid of pids) {
      const [r, st] = yield* u.wait(pid);
      if (r === pid && pid === pids[pids.length - 1]) last = st & 0x7f ? 128 + (st & 0x7f) : (st >> 8) & 0xff;
    }
    return last;
  };
  for (const l of lists) {
    let s = yield* runPipeline(l.first);
    if (s <= -1000) return -1000 - s;
    for (const r of l.rest) {
      if ((r.op === '&&' && s === 0) || (r.op === '||' && s !== 0)) {
        s = yield* runPipeline(r.p);
        if (s <= -1000) return -1000 - s;
      }
    }
    status = s;
  }
  return status;
}
