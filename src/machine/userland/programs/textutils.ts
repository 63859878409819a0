/**
 * coreutils 9.1's wc and tr (once textutils): the counts, column widths, totals and exit status of wc,
 * and tr's SET syntax (escapes, octal, ranges, classes, repeats), -d, -s, -c, -t, compared byte for
 * byte with the same commands on this Debian 12 host (test/machine/textutils.test.ts).
 */
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import type { ProgramMain } from '../../process/user';
import { bytesToString } from '../../process/user';
import { errStr, parseArgs } from './coreutils';

type G<T> = Generator<Op, T, SysResult>;

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/** lines, words, chars (UTF-8 characters), bytes, and the longest line's width (tabs to 8 columns) */
function counts(t: string): number[] {
  let lines = 0, words = 0, chars = 0, maxw = 0, pos = 0, inWord = false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if ((c & 0xc0) !== 0x80) chars++;
    if (c === 10 || c === 13 || c === 12) { if (c === 10) lines++; maxw = Math.max(maxw, pos); pos = 0; }
    else if (c === 9) pos += 8 - (pos % 8);
    else if (c >= 32 && c !== 127 && (c & 0xc0) !== 0x80) pos++;
    if (isSpace(c)) inWord = false;
    else if (!inWord) { inWord = true; words++; }
  }
  return [lines, words, chars, t.length, Math.max(maxw, pos)];
}

/**
 * wc: with one file and one count nothing is stat'd up front (width 1); otherwise each operand is
 * stat'd (stdin fstat'd) first and the width is the digits of the regular files' total size, at
 * least 7 when one is not a regular file.  Per file: open, then for -c alone a regular file's size
 * from its stat (read only when the size is a page multiple, past an lseek to the last block, as for
 * /proc files), else posix_fadvise(SEQUENTIAL) and 16 KiB reads; the line, close.  A `total` line
 * with several operands; exit 1 when a file failed.
 */
const wc: ProgramMain = function* (u, argv) {
  const { flags, long, ops } = parseArgs(argv);
  const longMap: Record<string, string> = { lines: 'l', words: 'w', chars: 'm', bytes: 'c', 'max-line-length': 'L' };
  for (const l of long) if (longMap[l]) flags.add(longMap[l]);
  const order = ['l', 'w', 'm', 'c', 'L'];
  let shown = order.map((f) => flags.has(f));
  if (!shown.some(Boolean)) shown = [true, true, false, true, false];
  const files: (string | null)[] = ops.length ? ops : [null];
  const stdin = (f: string | null): boolean => f === null || f === '-';
  const single = files.length === 1 && shown.filter(Boolean).length === 1;
  yield* u.malloc();
  const st: (StatInfo | number | null)[] = [];
  let width = 1;
  if (!single) {
    for (const f of files) st.push(stdin(f) ? yield* u.fstat(0) : yield* u.stat(f as string));
    let min = 1, total = 0;
    for (const s of st) if (typeof s !== 'number' && s) { if (s.isReg) total += s.size; else min = 7; }
    width = Math.max(String(total).length, min);
  }
  const line = (c: number[], name: string | null): string =>
    c.filter((_, k) => shown[k]).map((n) => String(n).padStart(width)).join(' ') + (name !== null ? ` ${name}` : '') + '\n';
  const bytesOnly = shown[3] && !shown[0] && !shown[1] && !shown[2] && !shown[4];
  const total = [0, 0, 0, 0, 0];
  let ok = true;
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    const fd = stdin(f) ? 0 : yield* u.open(f as string);
    if (fd < 0) { yield* u.err(`wc: ${f}: ${errStr(fd)}\n`); ok = false; continue; }
    let c: number[] | null = null;
    let skipped = 0;
    if (bytesOnly) {
      const s = st[i] ?? (yield* u.fstat(fd));
      if (typeof s !== 'number' && s.isReg) {
        const cur = fd === 0 ? yield* u.lseek(0, 0, 1) : 0;
        if (s.size % 4096) c = [0, 0, 0, Math.max(0, s.size - cur), 0];
        else {
          const hi = s.size - (s.size % ((s.blksize ?? 4096) + 1));
          if (cur >= 0 && cur < hi && (yield* u.lseek(fd, hi, 1)) >= 0) skipped = hi - cur;
        }
      }
    }
    if (!c) {
      yield* u.sys('fadvise64', [fd, 0, 0, 2]);
      let t = '';
      for (;;) {
        const r = yield* u.read(fd, 16384);
        if (r.ret < 0) { yield* u.err(`wc: ${f}: ${errStr(r.ret)}\n`); ok = false; break; }
        if (r.ret === 0 || !r.data) break;
        t += bytesToString(r.data);
      }
      c = counts(t);
      c[3] += skipped;
    }
    for (let k = 0; k < 5; k++) total[k] = k === 4 ? Math.max(total[k], c[k]) : total[k] + c[k];
    yield* u.printf(line(c, f));
    if (fd !== 0) yield* u.close(fd);
  }
  if (files.length > 1) yield* u.printf(line(total, 'total'));
  yield* u.closeStdout();
  return ok ? 0 : 1;
};

const CLASSES: Record<string, (c: number) => boolean> = {
  alnum: (c) => CLASSES.alpha(c) || CLASSES.digit(c),
  alpha: (c) => CLASSES.upper(c) || CLASSES.lower(c),
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: (c) => c >= 48 && c <= 57,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => c > 32 && c < 127 && !CLASSES.alpha(c) && !CLASSES.digit(c),
  space: isSpace,
  upper: (c) => c >= 65 && c <= 90,
  xdigit: (c) => CLASSES.digit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};
const ESC: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };

/** one element of a SET: a byte, a class name, or `[c*n]` (n 0: fill, set2 only) */
type TrElem = { c: number } | { cls: string } | { rep: number; n: number };

class TrError extends Error {}

/** A SET's elements (tr.c's unquote and build_spec_list): escapes are resolved first, then ranges, classes, [=c=], [c*n] */
function trParse(s: string, warn: string[]): TrElem[] {
  const chars: number[] = [];
  const escaped: boolean[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i) & 0xff;
    let esc = false;
    if (s[i] === '\\') {
      esc = true;
      if (i + 1 >= s.length) { warn.push('tr: warning: an unescaped backslash at end of string is not portable\n'); c = 92; }
      else if (/[0-7]/.test(s[i + 1])) {
        let v = 0, k = 0;
        while (k < 3 && /[0-7]/.test(s[i + 1 + k] ?? '') && v * 8 + Number(s[i + 1 + k]) <= 255) { v = v * 8 + Number(s[i + 1 + k]); k++; }
        if (k < 3 && k === 2 && /[0-7]/.test(s[i + 3] ?? '')) {
          warn.push(`tr: warning: the ambiguous octal escape \\${s.slice(i + 1, i + 4)} is being\n\tinterpreted as the 2-byte sequence \\0${s.slice(i + 1, i + 3)}, ${s[i + 3]}\n`);
        }
        c = v; i += k;
      } else { const e = s[++i]; c = ESC[e] ?? (e.charCodeAt(0) & 0xff); }
    }
    chars.push(c);
    escaped.push(esc);
  }
  const out: TrElem[] = [];
  const lit = (k: number): boolean => k < chars.length && !escaped[k];
  for (let i = 0; i < chars.length; i++) {
    if (lit(i) && chars[i] === 91 && i + 1 < chars.length) {
      // [:class:] and [=c=]
      const rest = String.fromCharCode(...chars.slice(i + 1));
      const m = /^([:=])(.*?)\1\]/s.exec(rest);
      if (m && lit(i + 1)) {
        if (m[1] === ':') {
          if (!CLASSES[m[2]]) throw new TrError(`tr: invalid character class '${m[2]}'\n`);
          out.push({ cls: m[2] });
        } else {
          if (m[2].length !== 1) throw new TrError(`tr: ${m[2]}: equivalence class operand must be a single character\n`);
          out.push({ c: m[2].charCodeAt(0) });
        }
        i += m[0].length;
        continue;
      }
      // [c*n] / [c*]
      if (i + 2 < chars.length && lit(i + 2) && chars[i + 2] === 42) {
        const r = /^\*([0-9]*)\]/.exec(String.fromCharCode(...chars.slice(i + 2)));
        if (r) {
          const n = r[1] === '' ? 0 : r[1].startsWith('0') ? parseInt(r[1], 8) : Number(r[1]);
          if (Number.isNaN(n)) throw new TrError(`tr: invalid repeat count '${r[1]}' in [c*n] construct\n`);
          out.push({ rep: chars[i + 1], n });
          i += 1 + r[0].length;
          continue;
        }
      }
    }
    if (i + 2 < chars.length && lit(i + 1) && chars[i + 1] === 45) {
      if (chars[i + 2] < chars[i]) {
        const q = (c: number) => (c >= 32 && c < 127 ? String.fromCharCode(c) : `\\${c.toString(8).padStart(3, '0')}`);
        throw new TrError(`tr: range-endpoints of '${q(chars[i])}-${q(chars[i + 2])}' are in reverse collating sequence order\n`);
      }
      for (let c = chars[i]; c <= chars[i + 2]; c++) out.push({ c });
      i += 2;
      continue;
    }
    out.push({ c: chars[i] });
  }
  return out;
}

/** the bytes of a SET in order; `fillTo`: the length a [c*] in set2 fills up to */
function trExpand(e: TrElem[], fillTo = 0): number[] {
  const plain = (x: TrElem): number[] => ('c' in x ? [x.c] : 'cls' in x ? [...Array(256).keys()].filter(CLASSES[x.cls]) : Array(x.n).fill(x.rep));
  const base = e.reduce((n, x) => n + ('rep' in x && x.n === 0 ? 0 : plain(x).length), 0);
  const out: number[] = [];
  for (const x of e) out.push(...('rep' in x && x.n === 0 ? Array(Math.max(0, fillTo - base)).fill(x.rep) : plain(x)));
  return out;
}

const trUsage = (msg: string): string => `tr: ${msg}\nTry 'tr --help' for more information.\n`;

/** tr: reads stdin in 64 KiB chunks, writes the result */
const tr: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  for (const f of flags) if (f === 'C') flags.add('c');
  const del = flags.has('d'), sq = flags.has('s'), comp = flags.has('c');
  if (!ops.length) { yield* u.err(trUsage('missing operand')); return 1; }
  const need = del === sq ? 2 : 1;
  if (ops.length < need) {
    yield* u.err(trUsage(`missing operand after '${ops[0]}'`).replace('\nTry', del ? '\nTwo strings must be given when both deleting and squeezing repeats.\nTry' : '\nTwo strings must be given when translating.\nTry'));
    return 1;
  }
  if (ops.length > 2 || (ops.length === 2 && del && !sq)) {
    const extra = ops.length > 2 ? ops[2] : ops[1];
    const why = del && !sq ? '\nOnly one string may be given when deleting without squeezing repeats.' : '';
    yield* u.err(`tr: extra operand '${extra}'${why}\nTry 'tr --help' for more information.\n`);
    return 1;
  }
  const warn: string[] = [];
  let s1: number[], s2: number[] = [];
  const translate = !del && ops.length === 2;
  try {
    const e1 = trParse(ops[0], warn);
    const e2 = ops.length === 2 ? trParse(ops[1], warn) : [];
    if (e1.some((x) => 'rep' in x && x.n === 0)) throw new TrError('tr: the [c*] repeat construct may not appear in string1\n');
    s1 = trExpand(e1);
    if (comp) { const inS1 = new Set(s1); s1 = [...Array(256).keys()].filter((c) => !inS1.has(c)); }
    if (translate) {
      if (e2.some((x) => 'cls' in x && x.cls !== 'upper' && x.cls !== 'lower')) throw new TrError("tr: when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'\n");
      s2 = trExpand(e2, s1.length);
      if (!s2.length) throw new TrError('tr: when not truncating set1, string2 must be non-empty\n');
      if (flags.has('t')) s1 = s1.slice(0, s2.length);
      while (s2.length < s1.length) s2.push(s2[s2.length - 1]);
    } else s2 = trExpand(e2);
  } catch (e) {
    if (!(e instanceof TrError)) throw e;
    for (const w of warn) yield* u.err(w);
    yield* u.err(e.message);
    return 1;
  }
  for (const w of warn) yield* u.err(w);
  const map = [...Array(256).keys()];
  if (translate) s1.forEach((c, k) => { map[c] = s2[k]; });
  const delSet = new Set(del ? s1 : []);
  const sqSet = new Set(sq ? (ops.length === 2 ? s2 : s1) : []);
  const text = bytesToString(yield* u.readAll(0));
  let out = '';
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (delSet.has(c)) continue;
    const o = map[c];
    if (o === last && sqSet.has(o)) continue;
    out += String.fromCharCode(o);
    last = o;
  }
  yield* u.out(out);
  return 0;
};

export const textutils: Record<string, ProgramMain> = { wc, tr };
