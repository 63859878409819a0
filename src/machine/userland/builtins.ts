/**
 * dash's output/test builtins: `echo`, `printf`, `test` and `[`. The shell runs them in its own
 * process (no fork, no execve); /usr/bin/echo stays a program for a direct exec.
 */
import type { U } from '../process/user';
import { expForm, fixedForm, gForm, nonFinite } from './libc_printf';

type Op = import('../include/sched').Op;
type SysResult = import('../include/sched').SysResult;
/** `prefix`: the shell's message prefix ("sh: LINE: ") for dash's write error report */
type Builtin = (u: U, words: string[], prefix?: string, bash?: boolean) => Generator<Op, number, SysResult>;

/** the shells whose stdio stdout has been used (glibc allocates its buffer on the first output: fstat) */
const stdoutUsed = new WeakSet<U>();
/**
 * A builtin's output.  dash writes its buffer at the end; bash's stdout is stdio, line buffered
 * (shell.c sh_setlinebuf): a write per line, the rest flushed at the builtin's end, the buffer set up by
 * the first output's fstat (strace of bash 5.2.15's printf "GET / HTTP/1.0\r\n\r\n": newfstatat(1, ""),
 * write(1, "GET / HTTP/1.0\r\n", 16), write(1, "\r\n", 2); data/recordings/tcp-http).
 */
function* shOut(u: U, s: string, bash: boolean): Generator<Op, number, SysResult> {
  if (!bash) return yield* u.out(s);
  if (!stdoutUsed.has(u)) { stdoutUsed.add(u); yield* u.sys('newfstatat', [1, '', 0, 0x1000]); }
  let n = 0;
  for (const piece of s.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const r = yield* u.out(piece);
    if (r < 0) return r;
    n += r;
  }
  return n;
}

const ESC: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Backslash escapes of dash's echo and printf's %b: the text, and whether `\c` stopped the output. */
export function unescape(s: string, octalNeedsZero: boolean): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\\' || i + 1 >= s.length) { out += ch; continue; }
    const n = s[i + 1];
    if (n === 'c') return { text: out, stop: true };
    if (ESC[n] !== undefined) { out += ESC[n]; i++; continue; }
    if (n >= '0' && n <= '7') {
      // echo / %b: \0nnn; the printf format: \nnn
      let j = i + 1;
      if (octalNeedsZero) { if (n !== '0') { out += ch; continue; } j++; }
      let v = 0, k = 0;
      while (k < 3 && j < s.length && s[j] >= '0' && s[j] <= '7') { v = v * 8 + (s.charCodeAt(j) - 48); j++; k++; }
      out += String.fromCharCode(v & 0xff);
      i = j - 1;
      continue;
    }
    out += ch;
  }
  return { text: out, stop: false };
}

/** dash's echo: `-n` as the first argument; escapes always interpreted. */
function* echo(u: U, words: string[], prefix = 'sh: 1: ', bash = false): Generator<Op, number, SysResult> {
  let a = words.slice(1);
  let nl = true;
  if (a[0] === '-n') { nl = false; a = a.slice(1); }
  let out = '';
  for (let i = 0; i < a.length; i++) {
    const r = unescape(a[i], true);
    out += (i ? ' ' : '') + r.text;
    if (r.stop) { nl = false; break; }
  }
  if (nl) out += '\n';
  // dash flushes its output buffer and reports a failed write(2) as EIO, whatever the errno
  if (out && (yield* shOut(u, out, bash)) < 0) { yield* u.err(`${prefix}echo: echo: I/O error\n`); return 1; }
  return 0;
}

/** A numeric printf/test argument as dash reads it (strtoimax; 'c gives the character's code). */
function numArg(s: string): number | null {
  if (s === '') return 0;
  if (s[0] === '"' || s[0] === "'") return s.length > 1 ? s.charCodeAt(1) : 0;
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return null;
  const v = m[2].startsWith('0x') || m[2].startsWith('0X') ? parseInt(m[2], 16) : m[2].startsWith('0') ? parseInt(m[2], 8) : parseInt(m[2], 10);
  return m[1] === '-' ? -v : v;
}

/** dash's printf: the format is reused while arguments remain. */
function* printf(u: U, words: string[], _prefix?: string, bash = false): Generator<Op, number, SysResult> {
  let args = words.slice(1);
  if (args[0] === '--') args = args.slice(1);
  if (!args.length) { yield* u.err('sh: 1: printf: usage: printf format [arg ...]\n'); return 2; }
  const fmt = args[0];
  const rest = args.slice(1);
  let ai = 0;
  let out = '';
  let status = 0;
  let errs = '';
  const next = () => (ai < rest.length ? rest[ai++] : undefined);
  const nextNum = (): number => {
    const s = next();
    if (s === undefined) return 0;
    const v = numArg(s);
    if (v === null) {
      const lead = /^\s*[+-]?\d+/.exec(s);
      errs += `sh: 1: printf: ${s}: ${lead ? 'not completely converted' : 'expected numeric value'}\n`;
      status = 1;
      return lead ? Number(lead[0]) : 0;
    }
    return v;
  };
  for (;;) {
    const consumedBefore = ai;
    let stop = false;
    for (let i = 0; i < fmt.length && !stop; i++) {
      const ch = fmt[i];
      if (ch === '\\') {
        const seg = /^\\([0-7]{1,3}|.)/.exec(fmt.slice(i));
        const r = unescape(seg ? seg[0] : '\\', false);
        if (r.stop) { stop = true; break; }
        out += r.text;
        i += (seg ? seg[0].length : 1) - 1;
        continue;
      }
      if (ch !== '%') { out += ch; continue; }
      const m = /^%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXcsb%eEfgG])/.exec(fmt.slice(i));
      if (!m) {
        yield* u.out(out);
        yield* u.err(`sh: 1: printf: %${fmt.slice(i + 1, i + 2)}: invalid directive\n`);
        return 1;
      }
      i += m[0].length - 1;
      const conv = m[4];
      if (conv === '%') { out += '%'; continue; }
      const flags = m[1];
      const width = m[2] === '*' ? nextNum() : m[2] !== undefined ? Number(m[2]) : undefined;
      const prec = m[3] === '*' ? nextNum() : m[3] !== undefined ? Number(m[3] || '0') : undefined;
      let body: string;
      if (conv === 's' || conv === 'b' || conv === 'c') {
        let s = next() ?? '';
        if (conv === 'b') { const r = unescape(s, true); s = r.text; if (r.stop) stop = true; }
        if (conv === 'c') s = s.slice(0, 1);
        if (prec !== undefined && conv !== 'c') s = s.slice(0, prec);
        body = s;
        out += pad(body, width, flags.includes('-'), false);
        continue;
      }
      if ('eEfgG'.includes(conv)) {
        const s = next();
        const v = s === undefined ? 0 : Number(s);
        const p = prec ?? 6;
        const upper = conv === 'E' || conv === 'G';
        body = !Number.isFinite(v) ? nonFinite(v, upper) : conv === 'f' ? fixedForm(v, p) : conv === 'e' || conv === 'E' ? expForm(v, p, upper) : gForm(v, p, upper, flags.includes('#'));
        if (v >= 0 && flags.includes('+')) body = '+' + body;
        out += pad(body, width, flags.includes('-'), flags.includes('0'));
        continue;
      }
      const v = BigInt(Math.trunc(nextNum()));
      const neg = v < 0n && (conv === 'd' || conv === 'i');
      const mag = conv === 'd' || conv === 'i' ? (neg ? -v : v) : BigInt.asUintN(64, v);
      const base = conv === 'o' ? 8 : conv === 'x' || conv === 'X' ? 16 : 10;
      let digits = mag.toString(base);
      if (conv === 'X') digits = digits.toUpperCase();
      if (prec !== undefined) digits = prec === 0 && mag === 0n ? '' : digits.padStart(prec, '0');
      let sign = neg ? '-' : (conv === 'd' || conv === 'i') && flags.includes('+') ? '+' : (conv === 'd' || conv === 'i') && flags.includes(' ') ? ' ' : '';
      if (flags.includes('#') && mag !== 0n) { if (conv === 'x') sign = '0x'; else if (conv === 'X') sign = '0X'; else if (conv === 'o' && !digits.startsWith('0')) digits = '0' + digits; }
      const zero = flags.includes('0') && !flags.includes('-') && prec === undefined;
      if (zero && width !== undefined && sign.length + digits.length < width) digits = digits.padStart(width - sign.length, '0');
      out += pad(sign + digits, width, flags.includes('-'), false);
    }
    if (stop || ai >= rest.length || ai === consumedBefore) break;
  }
  // dash reports conversion errors as it goes and writes its buffered output at the end
  if (errs) yield* u.err(errs);
  if (out) yield* shOut(u, out, bash);
  return status;
}

function pad(s: string, width: number | undefined, left: boolean, zero: boolean): string {
  if (width === undefined || s.length >= width) return s;
  if (left) return s.padEnd(width);
  if (zero) { const sg = /^[+-]/.test(s) ? s[0] : ''; return sg + s.slice(sg.length).padStart(width - sg.length, '0'); }
  return s.padStart(width);
}

class TestError extends Error {}

/** dash's test / [: exit 0 (true), 1 (false), 2 (error, with sh: 1: test: ... on stderr). */
function* test(u: U, words: string[]): Generator<Op, number, SysResult> {
  const name = words[0];
  let a = words.slice(1);
  if (name === '[') {
    if (a[a.length - 1] !== ']') { yield* u.err('sh: 1: [: missing ]\n'); return 2; }
    a = a.slice(0, -1);
  }
  const UNARY_FILE = new Set(['-e', '-f', '-d', '-r', '-w', '-x', '-s', '-L', '-h', '-b', '-c', '-p', '-S']);
  const BINARY = new Set(['=', '!=', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);
  let p = 0;
  const int = (s: string): number => {
    const m = /^\s*[+-]?\d+\s*$/.exec(s);
    if (!m) throw new TestError(`${name}: Illegal number: ${s}`);
    return Number(s);
  };
  function* fileTest(op: string, f: string): Generator<Op, boolean, SysResult> {
    const st = yield* u.stat(f, op === '-L' || op === '-h');
    if (typeof st === 'number') return false;
    switch (op) {
      case '-e': return true;
      case '-f': return st.isReg;
      case '-d': return st.isDir;
      case '-L': case '-h': return st.isLnk;
      case '-b': return st.isBlk;
      case '-c': return st.isChr;
      case '-s': return st.size > 0;
      case '-p': return (st.mode & 0o170000) === 0o010000;
      case '-S': return (st.mode & 0o170000) === 0o140000;
      case '-r': return (st.mode & 0o444) !== 0;
      case '-w': return (st.mode & 0o222) !== 0;
      default: return (st.mode & 0o111) !== 0;
    }
  }
  function* primary(): Generator<Op, boolean, SysResult> {
    if (p >= a.length) throw new TestError(`${name}: argument expected`);
    const t = a[p];
    if (t === '(' && p + 1 < a.length) {
      p++;
      const v = yield* oexpr();
      if (a[p] !== ')') throw new TestError(`${name}: closing paren expected`);
      p++;
      return v;
    }
    if (p + 2 < a.length + 0 && BINARY.has(a[p + 1])) {
      const l = a[p], op = a[p + 1], r = a[p + 2];
      p += 3;
      switch (op) {
        case '=': return l === r;
        case '!=': return l !== r;
        case '<': return l < r;
        case '>': return l > r;
        case '-eq': return int(l) === int(r);
        case '-ne': return int(l) !== int(r);
        case '-lt': return int(l) < int(r);
        case '-le': return int(l) <= int(r);
        case '-gt': return int(l) > int(r);
        case '-ge': return int(l) >= int(r);
        default: {
          const sl = yield* u.stat(l), sr = yield* u.stat(r);
          if (op === '-ef') return typeof sl !== 'number' && typeof sr !== 'number' && sl.ino === sr.ino;
          const ml = typeof sl === 'number' ? -1 : sl.mtime, mr = typeof sr === 'number' ? -1 : sr.mtime;
          return op === '-nt' ? ml > mr : ml < mr && ml >= 0;
        }
      }
    }
    if ((t === '-n' || t === '-z') && p + 1 < a.length) { p += 2; return (a[p - 1].length > 0) === (t === '-n'); }
    if (UNARY_FILE.has(t) && p + 1 < a.length) { p += 2; return yield* fileTest(t, a[p - 1]); }
    if (t === '-t' && p + 1 < a.length) { p += 2; return false; }
    p++;
    return t.length > 0;
  }
  function* nexpr(): Generator<Op, boolean, SysResult> {
    if (a[p] === '!' && p + 1 < a.length) { p++; return !(yield* nexpr()); }
    return yield* primary();
  }
  function* aexpr(): Generator<Op, boolean, SysResult> {
    let v = yield* nexpr();
    while (a[p] === '-a' && p + 1 < a.length) { p++; const r = yield* nexpr(); v = v && r; }
    return v;
  }
  function* oexpr(): Generator<Op, boolean, SysResult> {
    let v = yield* aexpr();
    while (a[p] === '-o' && p + 1 < a.length) { p++; const r = yield* aexpr(); v = v || r; }
    return v;
  }
  try {
    if (!a.length) return 1;
    const v = yield* oexpr();
    if (p < a.length) throw new TestError(`${name}: ${a[p]}: unexpected operator`);
    return v ? 0 : 1;
  } catch (e) {
    if (!(e instanceof TestError)) throw e;
    yield* u.err(`sh: 1: ${e.message}\n`);
    return 2;
  }
}

export const SHELL_BUILTINS: Record<string, Builtin> = { echo, printf, test, '[': test };
