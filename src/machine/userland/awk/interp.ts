/**
 * Running an awk program (parse.ts) as mawk 1.3.4 does: records and fields (FS: a blank, one
 * character, a regular expression; RS: newline, one character, "" for paragraphs), NR/NF/FNR,
 * $0 rebuilt with OFS when a field or NF is assigned, uninitialized values, string/number
 * comparisons by the operands' kinds, arrays and SUBSEP, the built-in functions, user functions
 * (arrays by reference), and mawk's own corners (substr with a start below 1, for-in order kept
 * as insertion order, division by zero giving inf). Pure: input comes as strings, output goes
 * to a callback; the awk program (userland/programs) feeds it from files and stdin.
 */
import { parse, Expr, Stmt, Program, Func, Redirect, AwkSyntaxError, escape } from './parse';
export type { Program } from './parse';
import { V, StrNum, toNum, toStr, toBool, isNumeric, fieldValue, numToStr, sprintf, AwkRuntimeError } from './format';

type Arr = Map<string, V>;
type Cell = V | Arr;

class NextRecord {}
class ExitProgram { constructor(readonly code: number) {} }
class BreakLoop {}
class ContinueLoop {}
class ReturnValue { constructor(readonly v: V) {} }

/** An operand of the command line: a file's contents (null: cannot open) or a `var=value` assignment. */
export type Operand = { file: string; data: string | null } | { assign: string; value: string };

/** what a run printed: stdout, stderr, the files written with > and >> (in order), the exit status */
export interface AwkResult { out: string; err: string; status: number; files: { name: string; append: boolean; data: string }[] }

/** Translate an ERE (mawk: braces are literal, `.` matches a newline too) to a JavaScript RegExp. */
export function ereToRegExp(re: string, global = false): RegExp {
  let out = '';
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') {
      const d = re[i + 1];
      if (d === undefined) { out += '\\\\'; break; }
      i++;
      const map: Record<string, string> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', v: '\\v', a: '\\x07', b: '\\x08', '/': '/', '"': '"' };
      if (map[d] !== undefined) out += map[d];
      else if (/[0-7]/.test(d)) {
        const m = /^[0-7]{1,3}/.exec(re.slice(i))![0];
        out += '\\x' + (parseInt(m, 8) & 0xff).toString(16).padStart(2, '0');
        i += m.length - 1;
      } else if (/[A-Za-z0-9]/.test(d)) out += d;
      else out += '\\' + d;
      continue;
    }
    if (c === '{' || c === '}') { out += '\\' + c; continue; }
    if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (re[j] === '^') { cls += '^'; j++; }
      if (re[j] === ']') { cls += '\\]'; j++; }
      for (; j < re.length && re[j] !== ']'; j++) {
        const named = /^\[:([a-z]+):\]/.exec(re.slice(j));
        if (named) {
          const classes: Record<string, string> = { alpha: 'A-Za-z', digit: '0-9', alnum: 'A-Za-z0-9', upper: 'A-Z', lower: 'a-z',
            space: ' \\t\\n\\r\\f\\v', blank: ' \\t', punct: '!-\\/:-@\\[-`{-~', print: ' -~', graph: '!-~', cntrl: '\\x00-\\x1f\\x7f', xdigit: '0-9A-Fa-f' };
          cls += classes[named[1]] ?? '';
          j += named[0].length - 1;
          continue;
        }
        if (re[j] === '\\' && j + 1 < re.length) { cls += '\\' + re[j + 1]; j++; continue; }
        cls += re[j] === '[' ? '\\[' : re[j];
      }
      if (j >= re.length) throw new AwkRuntimeError(`regular expression compile failed (bad class -- [], [^] or [)\n${re}`);
      out += cls + ']';
      i = j;
      continue;
    }
    out += c;
  }
  try {
    return new RegExp(out, global ? 'gs' : 's');
  } catch {
    throw new AwkRuntimeError(`regular expression compile failed (missing operand)\n${re}`);
  }
}

export class Awk {
  private readonly globals = new Map<string, Cell>();
  private frames: Map<string, Cell>[] = [];
  private fields: string[] = [];
  private record = '';
  private nf = 0;
  private fieldsValid = true;
  private out = '';
  private err = '';
  private readonly files = new Map<string, { append: boolean; data: string }>();
  private readonly reCache = new Map<string, RegExp>();
  private rangeActive: boolean[] = [];
  private seed = 0;
  private prevSeed = 0;
  private randState = 0;

  constructor(private readonly prog: Program, env: Record<string, string> = {}) {
    const g = this.globals;
    g.set('FS', ' '); g.set('OFS', ' '); g.set('ORS', '\n'); g.set('RS', '\n'); g.set('NR', 0); g.set('FNR', 0);
    g.set('SUBSEP', '\x1c'); g.set('CONVFMT', '%.6g'); g.set('OFMT', '%.6g'); g.set('RSTART', 0); g.set('RLENGTH', -1);
    g.set('FILENAME', '');
    const e: Arr = new Map();
    for (const [k, v] of Object.entries(env)) e.set(k, fieldValue(v));
    g.set('ENVIRON', e);
    this.randState = 0;
  }

  /** Run with the operands (files and assignments, in order); stdin is used when there is no file. */
  run(operands: Operand[], stdin: () => string): AwkResult {
    let status = 0;
    try {
      try {
        for (const r of this.prog.rules) if (r.kind === 'begin') this.execBlock(r.body!);
        const needInput = this.prog.rules.some((r) => r.kind !== 'begin');
        if (needInput) {
          const files = operands.filter((o) => 'file' in o);
          const list: Operand[] = files.length ? operands : [...operands, { file: '-', data: null }];
          for (const o of list) {
            if ('assign' in o) { this.assignArg(o.assign, o.value); continue; }
            const data = o.file === '-' && o.data === null ? stdin() : o.data;
            if (data === null) return { out: this.out, err: `${this.err}awk: cannot open ${o.file} (No such file or directory)\n`, status: 2, files: this.fileList() };
            this.globals.set('FILENAME', o.file);
            this.globals.set('FNR', 0);
            this.records(data);
          }
        }
      } catch (x) {
        if (!(x instanceof ExitProgram)) throw x;
        status = x.code;
      }
      try {
        for (const r of this.prog.rules) if (r.kind === 'end') this.execBlock(r.body!);
      } catch (x) {
        if (!(x instanceof ExitProgram)) throw x;
        status = x.code;
      }
    } catch (x) {
      if (x instanceof AwkRuntimeError) {
        const g = this.globals;
        const fnr = toStr(g.get('FNR') as V, '%.6g'), nr = toStr(g.get('NR') as V, '%.6g');
        return { out: this.out, err: `${this.err}awk: run time error: ${x.message}\n\tFILENAME="${toStr(g.get('FILENAME') as V, '%.6g')}" FNR=${fnr} NR=${nr}\n`, status: 2, files: this.fileList() };
      }
      throw x;
    }
    return { out: this.out, err: this.err, status, files: this.fileList() };
  }
  private fileList(): AwkResult['files'] {
    return [...this.files].map(([name, f]) => ({ name, append: f.append, data: f.data }));
  }
  /** write `text` where a print goes: stdout, or its redirection */
  private emit(text: string, redir: Redirect | null): void {
    if (!redir) { this.out += text; return; }
    const name = this.str(this.eval(redir.target));
    if (redir.op === '|') throw new AwkRuntimeError(`output to a command (| "${name}") is not supported by this awk`);
    if (name === '/dev/stdout' || name === '-') { this.out += text; return; }
    if (name === '/dev/stderr') { this.err += text; return; }
    const f = this.files.get(name);
    if (f) f.data += text; else this.files.set(name, { append: redir.op === '>>', data: text });
  }

  /** a `var=value` assignment (command line or -v): escapes processed, the value a strnum when numeric */
  assignArg(name: string, value: string): void {
    let s = '';
    for (let i = 0; i < value.length;) {
      if (value[i] === '\\') { const [c, n] = escape(value, i + 1); s += c; i = n; } else s += value[i++];
    }
    this.setVar(name, fieldValue(s));
  }

  private records(data: string): void {
    const rs = this.str(this.globals.get('RS') as V);
    let recs: string[];
    if (rs === '\n') { recs = data.split('\n'); if (recs[recs.length - 1] === '') recs.pop(); }
    else if (rs === '') recs = data.replace(/^\n+/, '').split(/\n\n+/).filter((r, i, a) => r !== '' || i < a.length - 1).map((r) => r.replace(/\n+$/, ''));
    else if (rs.length === 1) { recs = data.split(rs); if (recs[recs.length - 1] === '') recs.pop(); }
    else { recs = data.split(this.regex(rs)); if (recs[recs.length - 1] === '') recs.pop(); }
    const mains = this.prog.rules.filter((r) => r.kind === 'main');
    this.rangeActive = mains.map(() => false);
    for (const rec of recs) {
      this.globals.set('NR', toNum(this.globals.get('NR') as V) + 1);
      this.globals.set('FNR', toNum(this.globals.get('FNR') as V) + 1);
      this.setRecord(rec);
      try {
        mains.forEach((r, i) => {
          let hit: boolean;
          if (r.pat2) {
            if (this.rangeActive[i]) { hit = true; if (this.cond(r.pat2)) this.rangeActive[i] = false; }
            else if (this.cond(r.pat!)) { hit = true; this.rangeActive[i] = !this.cond(r.pat2); }
            else hit = false;
          } else hit = !r.pat || this.cond(r.pat);
          if (!hit) return;
          if (r.body) this.execBlock(r.body);
          else this.print([], null);
        });
      } catch (x) {
        if (!(x instanceof NextRecord)) throw x;
      }
    }
  }

  // ---------------------------------------------------------------- records and fields

  private setRecord(s: string): void {
    this.record = s;
    this.fieldsValid = false;
  }
  private split(): void {
    if (this.fieldsValid) return;
    this.fields = this.splitWith(this.record, this.globals.get('FS') as V, true);
    this.nf = this.fields.length;
    this.fieldsValid = true;
  }
  private splitWith(s: string, fsv: V, record: boolean): string[] {
    const fs = this.str(fsv);
    const paragraph = record && this.str(this.globals.get('RS') as V) === '';
    if (fs === ' ') { const t = s.trim().replace(/^[ \t\n]+|[ \t\n]+$/g, ''); return t === '' ? [] : t.split(/[ \t\n]+/); }
    if (s === '') return [];
    if (fs === '') return [...s];
    let parts: string[];
    if (fs.length === 1 && fs !== '\\') parts = s.split(fs === '\t' ? '\t' : fs);
    else parts = s.split(this.regex(fs));
    if (paragraph) parts = parts.flatMap((p) => p.split('\n'));
    return parts;
  }
  private getField(i: number): V {
    if (i < 0) throw new AwkRuntimeError(`negative field index $${i}`);
    if (i === 0) return fieldValue(this.record);
    this.split();
    return i <= this.nf ? fieldValue(this.fields[i - 1]) : undefined;
  }
  private setField(i: number, v: string): void {
    if (i < 0) throw new AwkRuntimeError(`negative field index $${i}`);
    if (i === 0) { this.setRecord(v); return; }
    this.split();
    while (this.fields.length < i) this.fields.push('');
    this.fields[i - 1] = v;
    this.nf = Math.max(this.nf, i);
    this.rebuild();
  }
  private rebuild(): void {
    this.record = this.fields.slice(0, this.nf).join(this.str(this.globals.get('OFS') as V));
  }

  // ---------------------------------------------------------------- variables

  private frame(): Map<string, Cell> | null { return this.frames.length ? this.frames[this.frames.length - 1] : null; }
  private cellOf(name: string): Map<string, Cell> {
    const f = this.frame();
    return f && f.has(name) ? f : this.globals;
  }
  private getVar(name: string): V {
    if (name === 'NF') { this.split(); return this.nf; }
    const c = this.cellOf(name).get(name);
    if (c instanceof Map) throw new AwkRuntimeError(`can't use array ${name} in scalar context`);
    return c;
  }
  private setVar(name: string, v: V): void {
    if (name === 'NF') {
      this.split();
      const n = Math.trunc(toNum(v));
      while (this.fields.length < n) this.fields.push('');
      this.fields.length = n;
      this.nf = n;
      this.rebuild();
      return;
    }
    const scope = this.cellOf(name);
    if (scope.get(name) instanceof Map) throw new AwkRuntimeError(`can't assign to array ${name}`);
    scope.set(name, v);
  }
  private arr(name: string): Arr {
    const scope = this.cellOf(name);
    const c = scope.get(name);
    if (c instanceof Map) return c;
    if (c !== undefined) throw new AwkRuntimeError(`can't use scalar ${name} as array`);
    const a: Arr = new Map();
    scope.set(name, a);
    return a;
  }
  private key(subs: Expr[]): string {
    const conv = this.str(this.globals.get('CONVFMT') as V);
    return subs.map((e) => toStr(this.eval(e), conv)).join(this.str(this.globals.get('SUBSEP') as V));
  }

  private str(v: V): string { return toStr(v, this.str2(this.globals.get('CONVFMT') as V)); }
  private str2(v: V): string { return typeof v === 'string' ? v : v instanceof StrNum ? v.s : '%.6g'; }
  private outStr(v: V): string {
    if (typeof v === 'number') return numToStr(v, this.str2(this.globals.get('OFMT') as V));
    return this.str(v);
  }
  private regex(src: string): RegExp {
    let r = this.reCache.get(src);
    if (!r) { r = ereToRegExp(src); this.reCache.set(src, r); }
    return r;
  }
  private reOf(e: Expr): RegExp {
    return this.regex(e.k === 're' ? e.v : this.str(this.eval(e)));
  }

  // ---------------------------------------------------------------- statements

  private execBlock(body: Stmt[]): void {
    for (const s of body) this.exec(s);
  }
  private exec(s: Stmt): void {
    switch (s.k) {
      case 'expr': this.eval(s.e); return;
      case 'print': this.print(s.args, s.redir); return;
      case 'printf': {
        const vals = s.args.map((a) => this.eval(a));
        try {
          this.emit(sprintf(this.str(vals[0]), vals.slice(1), this.str2(this.globals.get('CONVFMT') as V)), s.redir);
        } catch (x) {
          if (x instanceof AwkRuntimeError) throw new AwkRuntimeError(x.message.replace('sprintf(', 'printf('));
          throw x;
        }
        return;
      }
      case 'if': if (this.cond(s.c)) this.exec(s.t); else if (s.f) this.exec(s.f); return;
      case 'while':
        while (this.cond(s.c)) { if (this.loopBody(s.body)) break; }
        return;
      case 'do':
        do { if (this.loopBody(s.body)) break; } while (this.cond(s.c));
        return;
      case 'for':
        if (s.init) this.exec(s.init);
        while (!s.c || this.cond(s.c)) {
          if (this.loopBody(s.body)) break;
          if (s.step) this.exec(s.step);
        }
        return;
      case 'forin': {
        const keys = [...this.arr(s.arr).keys()];
        for (const k of keys) {
          this.assignTo(s.v, fieldValue(k));
          if (this.loopBody(s.body)) break;
        }
        return;
      }
      case 'block': this.execBlock(s.body); return;
      case 'next': throw new NextRecord();
      case 'break': throw new BreakLoop();
      case 'continue': throw new ContinueLoop();
      case 'exit': throw new ExitProgram(s.e ? Math.trunc(toNum(this.eval(s.e))) & 0xff : 0);
      case 'return': throw new ReturnValue(s.e ? this.eval(s.e) : undefined);
      case 'delete': {
        const a = this.arr(s.name);
        if (s.subs) a.delete(this.key(s.subs)); else a.clear();
        return;
      }
    }
  }
  /** run a loop body; true when it broke out */
  private loopBody(b: Stmt): boolean {
    try {
      this.exec(b);
    } catch (x) {
      if (x instanceof BreakLoop) return true;
      if (x instanceof ContinueLoop) return false;
      throw x;
    }
    return false;
  }
  private print(args: Expr[], redir: Redirect | null): void {
    const ofs = this.str(this.globals.get('OFS') as V), ors = this.str(this.globals.get('ORS') as V);
    if (!args.length) { this.emit(this.record + ors, redir); return; }
    this.emit(args.map((a) => this.outStr(this.eval(a))).join(ofs) + ors, redir);
  }

  // ---------------------------------------------------------------- expressions

  private cond(e: Expr): boolean {
    if (e.k === 're') return this.regex(e.v).test(this.record);
    return toBool(this.eval(e));
  }
  private assignTo(lhs: Expr, v: V): V {
    if (lhs.k === 'var') this.setVar(lhs.name, v);
    else if (lhs.k === 'index') this.arr(lhs.name).set(this.key(lhs.subs), v);
    else if (lhs.k === 'field') {
      const i = Math.trunc(toNum(this.eval(lhs.e)));
      this.setField(i, this.outStrConv(v));
      return v;
    } else if (lhs.k === 'group') return this.assignTo(lhs.e, v);
    return v;
  }
  private outStrConv(v: V): string { return typeof v === 'number' ? numToStr(v, this.str2(this.globals.get('CONVFMT') as V)) : this.str(v); }
  private lvalue(lhs: Expr): V {
    if (lhs.k === 'var') return this.getVar(lhs.name);
    if (lhs.k === 'index') return this.arr(lhs.name).get(this.key(lhs.subs));
    if (lhs.k === 'field') return this.getField(Math.trunc(toNum(this.eval(lhs.e))));
    return this.eval(lhs);
  }

  eval(e: Expr): V {
    switch (e.k) {
      case 'num': return e.v;
      case 'str': return e.v;
      case 're': return this.regex(e.v).test(this.record) ? 1 : 0;
      case 'group': return this.eval(e.e);
      case 'var': return this.getVar(e.name);
      case 'field': return this.getField(Math.trunc(toNum(this.eval(e.e))));
      case 'index': {
        const a = this.arr(e.name);
        const k = this.key(e.subs);
        if (!a.has(k)) a.set(k, undefined);
        return a.get(k);
      }
      case 'in': return this.arr(e.name).has(this.key(e.subs)) ? 1 : 0;
      case 'assign': {
        if (e.op === '=') return this.assignTo(e.lhs, this.copy(this.eval(e.rhs)));
        const r = toNum(this.eval(e.rhs));
        const l = toNum(this.lvalue(e.lhs));
        return this.assignTo(e.lhs, arith(e.op[0], l, r));
      }
      case 'cond': return this.cond(e.c) ? this.eval(e.a) : this.eval(e.b);
      case 'and': return this.cond(e.a) && this.cond(e.b) ? 1 : 0;
      case 'or': return this.cond(e.a) || this.cond(e.b) ? 1 : 0;
      case 'not': return this.cond(e.e) ? 0 : 1;
      case 'neg': return -toNum(this.eval(e.e));
      case 'plus': return toNum(this.eval(e.e));
      case 'match': {
        const s = this.str(this.eval(e.a));
        const hit = this.reOf(e.re).test(s);
        return hit !== e.neg ? 1 : 0;
      }
      case 'incdec': {
        const old = toNum(this.lvalue(e.e));
        const nv = e.op === '++' ? old + 1 : old - 1;
        this.assignTo(e.e, nv);
        return e.pre ? nv : old;
      }
      case 'concat': return this.str(this.eval(e.a)) + this.str(this.eval(e.b));
      case 'bin': {
        const a = this.eval(e.a), b = this.eval(e.b);
        switch (e.op) {
          case '<': case '<=': case '>': case '>=': case '==': case '!=': {
            let c: number;
            if (isNumeric(a) && isNumeric(b)) { const x = toNum(a), y = toNum(b); c = x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN; }
            else { const x = this.str(a), y = this.str(b); c = x < y ? -1 : x > y ? 1 : 0; }
            const r = e.op === '<' ? c < 0 : e.op === '<=' ? c <= 0 : e.op === '>' ? c > 0 : e.op === '>=' ? c >= 0 : e.op === '==' ? c === 0 : c !== 0;
            return r ? 1 : 0;
          }
          default: return arith(e.op, toNum(a), toNum(b));
        }
      }
      case 'call': return this.call(e.name, e.args);
      case 'builtin': return this.builtin(e.name, e.args);
    }
  }
  private copy(v: V): V { return v; }

  private call(name: string, args: Expr[]): V {
    const f: Func | undefined = this.prog.funcs.get(name);
    if (!f) throw new AwkRuntimeError(`function ${name} never defined`);
    if (args.length > f.params.length) throw new AwkRuntimeError(`too many arguments in call to ${name}`);
    const frame = new Map<string, Cell>();
    f.params.forEach((p, i) => {
      const a = args[i];
      if (!a) { frame.set(p, undefined); return; }
      if (a.k === 'var') {
        const scope = this.cellOf(a.name);
        const c = scope.get(a.name);
        if (c instanceof Map) { frame.set(p, c); return; }
        if (c === undefined && f.body.length && usesAsArray(f.body, p)) { const m: Arr = new Map(); scope.set(a.name, m); frame.set(p, m); return; }
      }
      frame.set(p, this.eval(a));
    });
    if (this.frames.length > 1000) throw new AwkRuntimeError('function call nesting too deep');
    this.frames.push(frame);
    try {
      this.execBlock(f.body);
    } catch (x) {
      if (x instanceof ReturnValue) return x.v;
      throw x;
    } finally {
      this.frames.pop();
    }
    return undefined;
  }

  private builtin(name: string, args: Expr[]): V {
    const s = (i: number) => this.str(this.eval(args[i]));
    const n = (i: number) => toNum(this.eval(args[i]));
    switch (name) {
      case 'length': {
        if (!args.length) return this.record.length;
        const a = args[0];
        if (a.k === 'var') { const c = this.cellOf(a.name).get(a.name); if (c instanceof Map) return c.size; }
        return s(0).length;
      }
      case 'substr': {
        const str = s(0);
        let m = Math.trunc(n(1));
        let len = args.length > 2 ? Math.trunc(n(2)) : Infinity;
        if (Number.isNaN(m)) m = 1;
        // mawk 1.3.4 20200120: a start below 1 keeps length - start characters from the first
        if (m < 1) { len = len - m; m = 1; }
        if (!(len > 0)) return '';
        return str.substr(m - 1, len === Infinity ? undefined : len);
      }
      case 'index': return s(0).indexOf(s(1)) + 1;
      case 'split': {
        const str = s(0);
        const a = args[1];
        if (a.k !== 'var') throw new AwkRuntimeError('split: second argument is not an array');
        const arr = this.arr(a.name);
        const parts = args.length > 2 ? this.splitWith(str, args[2].k === 're' ? args[2].v : this.eval(args[2]), false)
          : this.splitWith(str, this.globals.get('FS') as V, false);
        arr.clear();
        parts.forEach((p, i) => arr.set(String(i + 1), fieldValue(p)));
        return parts.length;
      }
      case 'sub': case 'gsub': {
        const re = this.reOf(args[0]);
        const repl = s(1);
        const target: Expr = args[2] ?? { k: 'field', e: { k: 'num', v: 0 } };
        const str = this.str(this.lvalue(target));
        const [res, count] = substitute(str, re, repl, name === 'gsub');
        if (count) this.assignTo(target, res);
        return count;
      }
      case 'match': {
        const str = s(0);
        const m = this.reOf(args[1]).exec(str);
        this.globals.set('RSTART', m ? m.index + 1 : 0);
        this.globals.set('RLENGTH', m ? m[0].length : -1);
        return m ? m.index + 1 : 0;
      }
      case 'sprintf': {
        if (!args.length) return '';
        const vals = args.map((a) => this.eval(a));
        return sprintf(this.str(vals[0]), vals.slice(1), this.str2(this.globals.get('CONVFMT') as V));
      }
      case 'tolower': return s(0).toLowerCase();
      case 'toupper': return s(0).toUpperCase();
      case 'int': return Math.trunc(n(0));
      case 'sqrt': return Math.sqrt(n(0));
      case 'exp': return Math.exp(n(0));
      case 'log': return Math.log(n(0));
      case 'sin': return Math.sin(n(0));
      case 'cos': return Math.cos(n(0));
      case 'atan2': return Math.atan2(n(0), n(1));
      case 'rand': {
        // a deterministic generator (the machine's runs are reproducible)
        this.randState = (Math.imul(this.randState ^ 0x5deece66, 1103515245) + 12345) >>> 0;
        return this.randState / 4294967296;
      }
      case 'srand': {
        const prev = this.seed;
        this.seed = args.length ? toNum(this.eval(args[0])) : this.prevSeed + 1;
        this.prevSeed = this.seed;
        this.randState = Math.trunc(this.seed) >>> 0;
        return prev;
      }
      case 'close': case 'fflush': return 0;
      case 'system': throw new AwkRuntimeError('system() is not available in this awk');
      default: throw new AwkRuntimeError(`unknown function ${name}`);
    }
  }
}

function arith(op: string, a: number, b: number): number {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '%': return a % b;
    case '^': return Math.pow(a, b);
    default: return 0;
  }
}

/** sub/gsub: `&` is the match, `\&` a literal ampersand */
function substitute(str: string, re: RegExp, repl: string, global: boolean): [string, number] {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  let count = 0;
  let out = '';
  let last = 0;
  for (let m = g.exec(str); m; m = g.exec(str)) {
    out += str.slice(last, m.index);
    for (let i = 0; i < repl.length; i++) {
      const c = repl[i];
      if (c === '\\' && (repl[i + 1] === '&' || repl[i + 1] === '\\')) { out += repl[++i]; continue; }
      out += c === '&' ? m[0] : c;
    }
    count++;
    last = m.index + m[0].length;
    if (m[0].length === 0) {
      if (m.index < str.length) out += str[m.index];
      last = m.index + 1;
      g.lastIndex = m.index + 1;
    }
    if (!global) break;
  }
  if (!count) return [str, 0];
  out += str.slice(last);
  return [out, count];
}

/** does a function body use parameter `p` as an array (p[...], `in p`, split(x, p), delete p)? */
function usesAsArray(body: Stmt[], p: string): boolean {
  return JSON.stringify(body).includes(`"name":"${p}","subs"`) || JSON.stringify(body).includes(`"k":"delete","name":"${p}"`)
    || JSON.stringify(body).includes(`"k":"in","subs":`) && JSON.stringify(body).includes(`"name":"${p}"}`);
}

/** Parse an awk program: the tree, or mawk's message for a syntax error. */
export function compileAwk(program: string): Program | string {
  try {
    return parse(program);
  } catch (x) {
    if (x instanceof AwkSyntaxError) return `awk: ${x.message}\n`;
    throw x;
  }
}

/** Does the program read input (a main rule or END), or only run BEGIN? */
export function readsInput(prog: Program): boolean {
  return prog.rules.some((r) => r.kind !== 'begin');
}

/** Run a compiled program with -v assignments and the operands (files read already, assignments). */
export function runAwk(prog: Program, assigns: [string, string][], operands: Operand[], stdin: () => string,
  env: Record<string, string> = {}): AwkResult {
  const awk = new Awk(prog, env);
  for (const [k, v] of assigns) awk.assignArg(k, v);
  return awk.run(operands, stdin);
}
