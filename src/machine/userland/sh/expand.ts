/**
 * Word expansion as dash does it: parameter expansion (with ${NAME:-word} and the other forms,
 * ${#NAME}, $@ $* $# $? $$ $! $- $0..$9), command substitution (run in a forked shell through
 * a pipe, trailing newlines removed), arithmetic expansion, then field splitting on IFS of the
 * unquoted expansion results and pathname expansion of words with unquoted glob characters.
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { Word, WordPart } from './parse';
import { arith, ArithError } from './arith';
import { globMatch } from '../../../kernel/ftrace_regex';

type G<T> = Generator<Op, T, SysResult>;

/** What expansion needs from the shell. */
export interface ExpandHost {
  get(name: string): string | undefined;
  set(name: string, v: string): void;
  params: string[];
  special(c: string): string;
  /** run `src` in a subshell with its stdout captured */
  cmdSubst(u: U, src: string): G<string>;
  /** report an expansion error (the shell prints it and the command fails) */
  fail(msg: string): never;
}

interface Seg { s: string; quoted: boolean; split: boolean }

function ifsChars(h: ExpandHost): string {
  const v = h.get('IFS');
  return v === undefined ? ' \t\n' : v;
}

function* paramValue(h: ExpandHost, u: U, p: Extract<WordPart, { k: 'param' }>): G<string | string[] | null> {
  const n = p.name;
  let v: string | undefined;
  if (n === '@' || n === '*') {
    if (p.op === 'len') return String(h.params.length);
    if (n === '@' && p.q && !p.op) return h.params.slice();
    v = h.params.join(n === '*' ? (ifsChars(h)[0] ?? '') : ' ');
    if (!h.params.length) v = undefined;
  } else if (/^[0-9]+$/.test(n) && n !== '0') v = h.params[Number(n) - 1];
  else if (/^[?$!#0-]$/.test(n)) v = h.special(n);
  else v = h.get(n);
  const arg = function* (): G<string> { return p.arg ? yield* expandToString(h, u, p.arg) : ''; };
  switch (p.op) {
    case '': return v ?? '';
    case 'len': return String((v ?? '').length);
    case '-': return v !== undefined ? v : yield* arg();
    case ':-': return v ? v : yield* arg();
    case '+': return v !== undefined ? yield* arg() : '';
    case ':+': return v ? yield* arg() : '';
    case '=': case ':=': {
      if (p.op === '=' ? v !== undefined : !!v) return v!;
      const a = yield* arg();
      h.set(n, a);
      return a;
    }
    case '?': case ':?': {
      if (p.op === '?' ? v !== undefined : !!v) return v!;
      const a = yield* arg();
      return h.fail(`${n}: ${a || 'parameter not set'}`);
    }
    case '#': case '##': case '%': case '%%': {
      const s = v ?? '';
      const pat = yield* arg();
      const longest = p.op.length === 2;
      if (p.op[0] === '#') {
        const lens = [...Array(s.length + 1).keys()];
        if (longest) lens.reverse();
        for (const k of lens) if (globMatch(pat, s.slice(0, k))) return s.slice(k);
        return s;
      }
      const starts = [...Array(s.length + 1).keys()];
      if (!longest) starts.reverse();
      for (const k of starts) if (globMatch(pat, s.slice(k))) return s.slice(0, k);
      return s;
    }
  }
  return v ?? '';
}

function* segments(h: ExpandHost, u: U, w: Word): G<(Seg | { fields: string[] })[]> {
  const out: (Seg | { fields: string[] })[] = [];
  for (let pi = 0; pi < w.parts.length; pi++) {
    let p = w.parts[pi];
    // tilde expansion: an unquoted ~ or ~/ at the start of the word is $HOME
    if (pi === 0 && p.k === 'lit' && !p.q && /^~(\/|$)/.test(p.s)) {
      out.push({ s: h.get('HOME') ?? '/root', quoted: true, split: false });
      p = { ...p, s: p.s.slice(1) };
    }
    switch (p.k) {
      case 'lit': out.push({ s: p.s, quoted: p.q, split: false }); break;
      case 'param': {
        const v = yield* paramValue(h, u, p);
        if (Array.isArray(v)) out.push({ fields: v });
        else if (v !== null) out.push({ s: v, quoted: p.q, split: !p.q });
        break;
      }
      case 'cmd': out.push({ s: yield* h.cmdSubst(u, p.src), quoted: p.q, split: !p.q }); break;
      case 'arith': {
        const src = yield* expandToString(h, u, { parts: reparse(p.src) });
        let v: bigint;
        try {
          v = arith(src, (n) => h.get(n) ?? '', (n, x) => h.set(n, x));
        } catch (e) {
          return h.fail(e instanceof ArithError ? e.message : String(e));
        }
        out.push({ s: v.toString(), quoted: p.q, split: !p.q });
        break;
      }
    }
  }
  return out;
}

/** $((...)) text may hold $NAME and $(cmd): re-read it as a double-quoted word body */
function reparse(src: string): WordPart[] {
  return hereParts(src);
}

/** A word expanded to one string (no splitting or globbing): assignments, redirection targets. */
export function* expandToString(h: ExpandHost, u: U, w: Word): G<string> {
  let s = '';
  for (const seg of yield* segments(h, u, w)) s += 'fields' in seg ? seg.fields.join(' ') : seg.s;
  return s;
}

const GLOB = /[*?[]/;

/** Words expanded to fields: splitting and pathname expansion. */
export function* expandWords(h: ExpandHost, u: U, words: Word[], noglob = false): G<string[]> {
  const out: string[] = [];
  for (const w of words) {
    const segs = yield* segments(h, u, w);
    const ifs = ifsChars(h);
    // fields as (text, per-char quoted flags); `started` when a quoted part makes an (empty) field exist
    let cur = '';
    let curQ: boolean[] = [];
    let started = false;
    const fields: { s: string; q: boolean[] }[] = [];
    const end = () => { if (started || cur) fields.push({ s: cur, q: curQ }); cur = ''; curQ = []; started = false; };
    for (const seg of segs) {
      if ('fields' in seg) {
        seg.fields.forEach((f, i) => {
          if (i > 0) end();
          cur += f; curQ.push(...Array(f.length).fill(true)); started = true;
        });
        continue;
      }
      if (!seg.split) {
        cur += seg.s; curQ.push(...Array(seg.s.length).fill(seg.quoted));
        if (seg.quoted) started = true;
        continue;
      }
      for (const ch of seg.s) {
        if (ifs.includes(ch)) {
          if (/\s/.test(ch)) { if (cur || started) end(); } else { started = true; end(); }
          continue;
        }
        cur += ch; curQ.push(false);
      }
    }
    end();
    for (const f of fields) {
      const unq = f.s.split('').some((c, i) => !f.q[i] && GLOB.test(c));
      if (noglob || !unq) { out.push(f.s); continue; }
      const pat = f.s.split('').map((c, i) => (f.q[i] && /[*?[\\]/.test(c) ? '\\' + c : c)).join('');
      const hits = yield* glob(u, pat);
      if (hits.length) out.push(...hits); else out.push(f.s);
    }
  }
  return out;
}

/** Pathname expansion of a pattern (components with glob characters are matched per directory). */
function* glob(u: U, pat: string): G<string[]> {
  const abs = pat.startsWith('/');
  const comps = pat.split('/').filter((c, i) => c !== '' || i === 0);
  let bases = [abs ? '/' : ''];
  for (let ci = abs ? 1 : 0; ci < comps.length; ci++) {
    const c = comps[ci];
    const next: string[] = [];
    for (const b of bases) {
      const join = (n: string) => (b === '' ? n : b.endsWith('/') ? b + n : `${b}/${n}`);
      if (!GLOB.test(c.replace(/\\./g, ''))) { next.push(join(c.replace(/\\(.)/g, '$1'))); continue; }
      const dir = b === '' ? '.' : b;
      const fd = yield* u.open(dir, 0o200000);
      if (fd < 0) continue;
      const r = yield* u.getdents(fd);
      yield* u.close(fd);
      if (!Array.isArray(r)) continue;
      for (const n of r.filter((x) => x !== '.' && x !== '..').sort()) {
        if (n.startsWith('.') && !c.startsWith('.')) continue;
        if (globMatch(c, n)) next.push(join(n));
      }
    }
    bases = next;
    if (!bases.length) return [];
  }
  // every component but the last must be a directory; the last must exist
  const out: string[] = [];
  for (const p of bases) { const st = yield* u.stat(p); if (typeof st !== 'number') out.push(p); }
  return out;
}

/** A here-document body (or arithmetic text) as double-quoted word parts: $ expansions and \$ \` \\ escapes. */
export function hereParts(body: string): WordPart[] {
  const parts: WordPart[] = [];
  let lit = '';
  const flush = () => { if (lit) { parts.push({ k: 'lit', s: lit, q: true }); lit = ''; } };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && i + 1 < body.length && '$`\\\n'.includes(body[i + 1])) {
      if (body[i + 1] !== '\n') lit += body[i + 1];
      i++;
      continue;
    }
    if (c === '$' && body[i + 1] === '(' ) {
      const dbl = body[i + 2] === '(';
      let depth = 0, j = i + 1;
      for (; j < body.length; j++) { if (body[j] === '(') depth++; else if (body[j] === ')' && --depth === 0) break; }
      if (j >= body.length) { lit += c; continue; }
      flush();
      if (dbl && body[j - 1] === ')') parts.push({ k: 'arith', src: body.slice(i + 3, j - 1), q: true });
      else parts.push({ k: 'cmd', src: body.slice(i + 2, j), q: true });
      i = j;
      continue;
    }
    if (c === '$' && body[i + 1] === '{') {
      const j = body.indexOf('}', i);
      if (j < 0) { lit += c; continue; }
      flush();
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])(:?[-=?+])?(.*)$/s.exec(body.slice(i + 2, j));
      if (m) parts.push({ k: 'param', name: m[1], op: m[2] ?? '', arg: m[2] ? { parts: [{ k: 'lit', s: m[3], q: true }] } : null, q: true });
      i = j;
      continue;
    }
    if (c === '$') {
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(body.slice(i + 1));
      if (m) { flush(); parts.push({ k: 'param', name: m[1], op: '', arg: null, q: true }); i += m[1].length; continue; }
    }
    if (c === '`') {
      const j = body.indexOf('`', i + 1);
      if (j > i) { flush(); parts.push({ k: 'cmd', src: body.slice(i + 1, j), q: true }); i = j; continue; }
    }
    lit += c;
  }
  flush();
  return parts;
}
