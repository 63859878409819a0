/**
 * GNU sed 4.9 basics: sed [-n] [-E|-r] [-i] [-e SCRIPT]... [SCRIPT] [FILE...] with the commands
 * people use in one-liners: s/RE/REPLACEMENT/[g p N i I], d, p, q, =, y/abc/xyz/, a/i/c TEXT,
 * addresses N, $, /RE/ and ranges A,B; basic regular expressions as grep's (core.ts).
 */
import type { ProgramMain } from '../../process/user';
import { bytesToString } from '../../process/user';
import { O_CREAT, O_TRUNC, O_WRONLY } from '../../include/fs';
import { breToJs } from './core';

type Addr = { line?: number; last?: boolean; re?: RegExp } | null;
interface Cmd { a1: Addr; a2: Addr; neg: boolean; op: string; re?: RegExp; rep?: string; global?: boolean; nth?: number; print?: boolean; text?: string; from?: string; to?: string; active?: boolean }

function parseScript(src: string, ere: boolean): Cmd[] | string {
  const cmds: Cmd[] = [];
  let i = 0;
  const re = (pat: string, flags = '') => new RegExp(ere ? pat : breToJs(pat), flags);
  const delimited = (d: string): string => {
    let s = '';
    while (i < src.length && src[i] !== d) {
      if (src[i] === '\\' && src[i + 1] === d) { s += d; i += 2; continue; }
      if (src[i] === '\\' && i + 1 < src.length) { s += src[i] + src[i + 1]; i += 2; continue; }
      s += src[i++];
    }
    i++;
    return s;
  };
  const addr = (): Addr => {
    if (/\d/.test(src[i] ?? '')) { let n = ''; while (/\d/.test(src[i] ?? '')) n += src[i++]; return { line: Number(n) }; }
    if (src[i] === '$') { i++; return { last: true }; }
    if (src[i] === '/') { i++; return { re: re(delimited('/')) }; }
    return null;
  };
  while (i < src.length) {
    while (i < src.length && /[\s;]/.test(src[i])) i++;
    if (i >= src.length) break;
    const a1 = addr();
    let a2: Addr = null;
    if (a1 && src[i] === ',') { i++; a2 = addr(); }
    while (src[i] === ' ') i++;
    let neg = false;
    if (src[i] === '!') { neg = true; i++; }
    const op = src[i++];
    const c: Cmd = { a1, a2, neg, op };
    if (op === 's') {
      const d = src[i++];
      const pat = delimited(d);
      c.rep = delimited(d);
      let fl = '';
      while (i < src.length && /[gpiI0-9]/.test(src[i])) fl += src[i++];
      c.global = fl.includes('g');
      c.print = fl.includes('p');
      c.nth = Number(fl.replace(/\D/g, '')) || 1;
      try { c.re = re(pat, /[iI]/.test(fl) ? 'i' : ''); } catch { return `-e expression #1, char ${i}: unterminated \`s' command`; }
    } else if (op === 'y') {
      const d = src[i++];
      c.from = delimited(d); c.to = delimited(d);
    } else if (op === 'a' || op === 'i' || op === 'c') {
      while (src[i] === ' ' || src[i] === '\\') i++;
      let t = '';
      while (i < src.length && src[i] !== '\n') t += src[i++];
      c.text = t;
    } else if (!'dpqn=lh'.includes(op ?? '')) return `-e expression #1, char ${i}: unknown command: \`${op}'`;
    cmds.push(c);
  }
  return cmds;
}

/** sed's replacement: & the match, \1..\9 groups, \n newline */
function replacement(rep: string, m: RegExpExecArray): string {
  let out = '';
  for (let k = 0; k < rep.length; k++) {
    const ch = rep[k];
    if (ch === '&') out += m[0];
    else if (ch === '\\' && k + 1 < rep.length) { const n = rep[++k]; out += /\d/.test(n) ? m[Number(n)] ?? '' : n === 'n' ? '\n' : n === 't' ? '\t' : n; } else out += ch;
  }
  return out;
}

const sed: ProgramMain = function* (u, argv) {
  let quiet = false, ere = false, inPlace = false;
  const scripts: string[] = [];
  const files: string[] = [];
  for (let k = 1; k < argv.length; k++) {
    const a = argv[k];
    if (a === '-n' || a === '--quiet') quiet = true;
    else if (a === '-E' || a === '-r') ere = true;
    else if (a === '-i' || a.startsWith('-i')) inPlace = true;
    else if (a === '-e') scripts.push(argv[++k] ?? '');
    else if (/^-[nErs]+$/.test(a)) { if (a.includes('n')) quiet = true; if (/[Er]/.test(a)) ere = true; }
    else if (!scripts.length && !files.length && !argv.slice(1, k).includes('-e')) scripts.push(a);
    else files.push(a);
  }
  if (!scripts.length) { yield* u.err('Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n'); return 1; }
  const cmds = parseScript(scripts.join('\n'), ere);
  if (typeof cmds === 'string') { yield* u.err(`sed: ${cmds}\n`); return 1; }
  const run = (text: string): { out: string; quit: boolean } => {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let out = '';
    for (let n = 0; n < lines.length; n++) {
      let ps = lines[n];
      const last = n === lines.length - 1;
      let del = false, quit = false;
      const append: string[] = [];
      const hit = (a: Addr) => !!a && (a.last ? last : a.line !== undefined ? a.line === n + 1 : !!a.re && a.re.test(ps));
      for (const c of cmds) {
        let sel: boolean;
        if (!c.a1) sel = true;
        else if (!c.a2) sel = hit(c.a1);
        else if (c.active) { sel = true; if (c.a2.line !== undefined ? n + 1 >= c.a2.line : hit(c.a2)) c.active = false; }
        else { sel = hit(c.a1); if (sel) c.active = !(c.a2.line !== undefined && c.a2.line <= n + 1); }
        if (sel === c.neg) continue;
        if (c.op === 's' && c.re) {
          const g = new RegExp(c.re.source, c.re.flags.includes('g') ? c.re.flags : c.re.flags + 'g');
          let k = 0, done = false, res = '', pos = 0;
          for (let m = g.exec(ps); m; m = g.exec(ps)) {
            k++;
            if (k >= c.nth! && (c.global || k === c.nth)) { res += ps.slice(pos, m.index) + replacement(c.rep!, m); pos = m.index + m[0].length; done = true; }
            if (!m[0].length) g.lastIndex++;
            if (!c.global && done) break;
          }
          if (done) { ps = res + ps.slice(pos); if (c.print) out += ps + '\n'; }
        } else if (c.op === 'd') { del = true; break; }
        else if (c.op === 'p') out += ps + '\n';
        else if (c.op === '=') out += `${n + 1}\n`;
        else if (c.op === 'q') { quit = true; break; }
        else if (c.op === 'y') ps = [...ps].map((ch) => { const k = c.from!.indexOf(ch); return k >= 0 ? c.to![k] ?? ch : ch; }).join('');
        else if (c.op === 'a') append.push(c.text!);
        else if (c.op === 'i') out += c.text + '\n';
        else if (c.op === 'c') { out += c.text + '\n'; del = true; break; }
      }
      if (!del && !quiet) out += ps + '\n';
      for (const t of append) out += t + '\n';
      if (quit) return { out, quit: true };
    }
    return { out, quit: false };
  };
  let st = 0;
  if (inPlace) {
    for (const f of files) {
      const fd = yield* u.open(f);
      if (fd < 0) { yield* u.err(`sed: can't read ${f}: No such file or directory\n`); st = 2; continue; }
      const t = bytesToString(yield* u.readAll(fd));
      yield* u.close(fd);
      const o = yield* u.open(f, O_WRONLY | O_CREAT | O_TRUNC);
      yield* u.writeAll(o, run(t).out);
      yield* u.close(o);
    }
    return st;
  }
  let text = '';
  for (const f of files.length ? files : ['-']) {
    if (f === '-') { text += bytesToString(yield* u.readAll(0)); continue; }
    const fd = yield* u.open(f);
    if (fd < 0) { yield* u.err(`sed: can't read ${f}: No such file or directory\n`); st = 2; continue; }
    text += bytesToString(yield* u.readAll(fd));
    yield* u.close(fd);
  }
  yield* u.out(run(text).out);
  return st;
};

export const sedPrograms: Record<string, ProgramMain> = { sed };
