/**
 * Event filters (kernel/trace/trace_events_filter.c of Linux 6.1): `field OP value` predicates
 * joined with && / || and parentheses, `!` inverting a group; numeric ops == != < <= > >= &,
 * string ops == != ~ (glob by filter_parse_regex). Parsed as the kernel does (calc_stack, then
 * predicate_parse building the branch program), with the same error codes and positions, so a
 * rejected filter reads back as the kernel shows it: the expression, a caret line, and
 * "parse_error: <text>".
 */
import { filterParseRegex, globMatch, MATCH_FULL, MATCH_FRONT_ONLY, MATCH_MIDDLE_ONLY, MATCH_END_ONLY, MATCH_GLOB } from '../ftrace_regex';

export const FILTER_ERRORS = [
  'No error', 'Invalid operator', "Too many '('", "Too few '('", 'Missing matching quote', 'Operand too long',
  'Expecting string field', 'Expecting numeric field', 'Illegal operation for field type', 'Field not found',
  'Illegal integer value', "Couldn't find or set field in one of a subsystem's events", 'Too many terms in predicate expression',
  'Meaningless filter expression', "Only 'ip' field is supported for function trace", 'Invalid value (did you forget quotes)?',
  'Error', 'No filter found',
];
export const E_INVALID_OP = 1, E_TOO_MANY_OPEN = 2, E_TOO_MANY_CLOSE = 3, E_MISSING_QUOTE = 4, E_OPERAND_TOO_LONG = 5,
  E_EXPECT_STRING = 6, E_EXPECT_DIGIT = 7, E_ILLEGAL_FIELD_OP = 8, E_FIELD_NOT_FOUND = 9, E_ILLEGAL_INTVAL = 10,
  E_BAD_SUBSYS_FILTER = 11, E_TOO_MANY_PREDS = 12, E_INVALID_FILTER = 13, E_IP_FIELD_ONLY = 14, E_INVALID_VALUE = 15, E_NO_FILTER = 17;

const OPS = ['~', '!=', '==', '<=', '<', '>=', '>', '&'];
const MAX_FILTER_STR_VAL = 256;

/** A field as filters see it (ftrace_event_field). */
export interface FilterField {
  name: string;
  type: string;
  offset: number;
  size: number;
  signed: boolean;
  /** 'comm' (current->comm), 'static' (char array), 'dyn' (__data_loc string), 'ptr' (char *), 'cpu', 'num' */
  kind: 'comm' | 'static' | 'dyn' | 'ptr' | 'cpu' | 'num';
}

/** What a predicate reads from a record. */
export interface FilterRec {
  num(f: FilterField): bigint;
  str(f: FilterField): { s: string; len: number };
  cpu(): number;
  comm(): string;
}

interface Pred {
  field: FilterField;
  op: string;
  not: boolean;
  val: bigint;
  regexType: number;
  pattern: string;
}

interface ProgEntry { pred: Pred | null; target: number; whenToBranch: boolean }

export interface ParseError { code: number; pos: number }

export class EventFilter {
  constructor(readonly text: string, private readonly prog: ProgEntry[]) {}
  match(rec: FilterRec): boolean {
    const prog = this.prog;
    let i = 0;
    for (; prog[i].pred; i++) {
      const m = predMatch(prog[i].pred!, rec);
      if (m === prog[i].whenToBranch) i = prog[i].target;
    }
    return prog[i].target === 1;
  }
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

function calcStack(str: string): { err: number; pos: number; parens: number; preds: number } {
  let isPred = false, nrPreds = 0, open = 1, lastQuote = 0, maxOpen = 1, quote = '';
  let i = 0;
  for (; i < str.length; i++) {
    const c = str[i];
    if (isSpace(c)) continue;
    if (quote) { if (c === quote) quote = ''; continue; }
    switch (c) {
      case "'": case '"': quote = c; lastQuote = i; break;
      case '|': case '&':
        if (str[i + 1] !== c) break;
        isPred = false;
        continue;
      case '(':
        isPred = false; open++; if (open > maxOpen) maxOpen = open;
        continue;
      case ')':
        isPred = false;
        if (open === 1) return { err: E_TOO_MANY_CLOSE, pos: i, parens: 0, preds: 0 };
        open--;
        continue;
    }
    if (!isPred) { nrPreds++; isPred = true; }
  }
  if (quote) return { err: E_MISSING_QUOTE, pos: lastQuote, parens: 0, preds: 0 };
  if (open !== 1) {
    const level0 = open;
    let level = open;
    let q = '';
    for (i--; i > 0; i--) {
      const c = str[i];
      if (q) { if (c === q) q = ''; continue; }
      if (c === '(') { if (level === level0) return { err: E_TOO_MANY_OPEN, pos: i, parens: 0, preds: 0 }; level--; }
      else if (c === ')') level++;
      else if (c === "'" || c === '"') q = c;
    }
    return { err: E_TOO_MANY_OPEN, pos: 0, parens: 0, preds: 0 };
  }
  return { err: 0, pos: 0, parens: maxOpen, preds: nrPreds };
}

/** parse_pred(): one predicate at str[start..]; returns its length or a parse error. */
function parsePred(str: string, start: number, pos: number, fields: (n: string) => FilterField | null,
  isFunction: boolean): { len: number; pred: Pred } | ParseError {
  let i = start;
  while (isSpace(str[i])) i++;
  const s0 = i;
  while (i < str.length && /[A-Za-z0-9_]/.test(str[i])) i++;
  const rel = (k: number) => pos + (k - start);
  if (i === s0) return { code: -1, pos: 0 };
  const field = fields(str.slice(s0, i));
  if (!field) return { code: E_FIELD_NOT_FOUND, pos: rel(i) };
  if (str.startsWith('.ustring', i)) i += 8;
  while (isSpace(str[i])) i++;
  const op = OPS.find((o) => str.startsWith(o, i));
  if (!op) return { code: E_INVALID_OP, pos: rel(i) };
  i += op.length;
  while (isSpace(str[i])) i++;
  let s = i;
  const pred: Pred = { field, op, not: false, val: 0n, regexType: MATCH_FULL, pattern: '' };
  if (isFunction) {
    if (field.name !== 'ip') return { code: E_IP_FIELD_ONLY, pos: rel(i) };
    const q = str[i] === "'" || str[i] === '"' ? str[i] : '';
    for (i++; i < str.length; i++) {
      if (q && str[i] === q) break;
      if (!q && (str[i] === ')' || str[i] === '&' || str[i] === '|')) break;
    }
    if (q) s++;
    if (i - s >= MAX_FILTER_STR_VAL) return { code: E_OPERAND_TOO_LONG, pos: rel(i) };
    pred.pattern = str.slice(s, i);
    return { len: i - start, pred };
  }
  if (str[i] === "'" || str[i] === '"') {
    const q = str[i];
    if (op === '!=') pred.not = true;
    else if (op !== '~' && op !== '==') return { code: E_ILLEGAL_FIELD_OP, pos: rel(i) };
    if (field.kind === 'num' || field.kind === 'cpu') return { code: E_EXPECT_DIGIT, pos: rel(i) };
    for (i++; i < str.length; i++) if (str[i] === q) break;
    if (i >= str.length) return { code: E_MISSING_QUOTE, pos: rel(i) };
    s++;
    if (i - s >= MAX_FILTER_STR_VAL) return { code: E_OPERAND_TOO_LONG, pos: rel(i) };
    pred.pattern = str.slice(s, i);
    if (op === '~') {
      const r = filterParseRegex(pred.pattern);
      pred.regexType = r.type;
      pred.pattern = r.search;
      if (r.not) pred.not = true;
    }
    i++;
    return { len: i - start, pred };
  }
  if (/[0-9]/.test(str[i] ?? '') || str[i] === '-') {
    if (field.kind !== 'num' && field.kind !== 'cpu') return { code: E_EXPECT_STRING, pos: rel(i) };
    if (op === '~') return { code: E_ILLEGAL_FIELD_OP, pos: rel(i) };
    if (str[i] === '-') i++;
    while (i < str.length && /[A-Za-z0-9]/.test(str[i])) i++;
    const numText = str.slice(s, i);
    if (numText.length >= 24) return { code: E_OPERAND_TOO_LONG, pos: rel(i) };
    const v = kstrtoll(numText, field.signed);
    if (v === null) return { code: E_ILLEGAL_INTVAL, pos: rel(s) };
    pred.val = v;
    if (op === '!=') pred.not = true;
    return { len: i - start, pred };
  }
  return { code: E_INVALID_VALUE, pos: rel(i) };
}

/** kstrtoll/kstrtoull with base 0 (0x hex, 0 octal, decimal). */
function kstrtoll(t: string, signed: boolean): bigint | null {
  let neg = false;
  if (t.startsWith('-')) { if (!signed) return null; neg = true; t = t.slice(1); }
  let v: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) v = BigInt(t);
  else if (/^0[0-7]*$/.test(t)) v = t.length > 1 ? BigInt('0o' + t.slice(1)) : 0n;
  else if (/^[1-9][0-9]*$/.test(t)) v = BigInt(t);
  else return null;
  if (v > (signed ? (1n << 63n) : (1n << 64n) - 1n)) return null;
  return neg ? -v : v;
}

/**
 * Parse a filter for an event whose fields `fields` resolves (common fields included).
 * Returns the filter or the error (code, position) as process_preds() reports it.
 */
export function parseFilter(str: string, fields: (n: string) => FilterField | null, isFunction = false): EventFilter | ParseError {
  const cs = calcStack(str);
  if (cs.err) return { code: cs.err, pos: cs.pos };
  if (!cs.preds) return { code: -22, pos: 0 };
  const nrPreds = cs.preds + 2;
  const prog: ProgEntry[] = [];
  const inverts: boolean[] = [];
  const stack: number[] = [0];
  let invert = 0;
  let N = 0;
  const INVERT = 1, PROCESS_AND = 2, PROCESS_OR = 4;
  const update = (n: number, inv: boolean) => {
    const t = prog[n].target;
    const s = prog[t].target;
    prog[t].whenToBranch = inv;
    prog[t].target = n;
    prog[n].target = s;
  };
  let p = 0;
  let reachedOut = false;
  outer: while (p < str.length) {
    const next = p++;
    const c = str[next];
    if (isSpace(c)) continue;
    if (c === '(') { if (stack.length - 1 > cs.parens) return { code: -22, pos: 0 }; stack.push(invert); continue; }
    if (c === '!' && str[next + 1] !== '=' && str[next + 1] !== '~') { invert = invert ? 0 : 1; continue; }
    if (N >= nrPreds) return { code: E_TOO_MANY_PREDS, pos: next };
    inverts[N] = invert !== 0;
    prog[N] = { pred: null, target: N - 1, whenToBranch: false };
    const r = parsePred(str, next, p, fields, isFunction);
    if ('code' in r) return r;
    prog[N].pred = r.pred;
    p = next + r.len;
    N++;
    for (;;) {
      const q = p++;
      const ch = q < str.length ? str[q] : '';
      if (isSpace(ch)) continue;
      if (ch === '&' || ch === '|') {
        if (str[q + 1] === ch) p++;
        else return { code: E_TOO_MANY_PREDS, pos: q };
      } else if (ch !== ')' && ch !== '') return { code: E_TOO_MANY_PREDS, pos: q };
      let top = stack[stack.length - 1];
      invert = top & INVERT;
      if (top & PROCESS_AND) { update(N - 1, invert !== 0); top &= ~PROCESS_AND; }
      if (ch === '&') { stack[stack.length - 1] = top | PROCESS_AND; break; }
      if (top & PROCESS_OR) { update(N - 1, invert === 0); top &= ~PROCESS_OR; }
      if (ch === '|') { stack[stack.length - 1] = top | PROCESS_OR; break; }
      stack[stack.length - 1] = top;
      if (ch === '') { reachedOut = true; break outer; }
      if (stack.length === 1) return { code: E_TOO_MANY_CLOSE, pos: p };
      stack.pop();
    }
  }
  // only the inner loop can complete a non-empty expression
  if (!reachedOut && N) return { code: E_INVALID_FILTER, pos: p };
  if (stack.length !== 1) return { code: E_TOO_MANY_OPEN, pos: p };
  if (!N) return { code: E_NO_FILTER, pos: p };
  prog[N] = { pred: null, target: 1, whenToBranch: false };
  prog[N + 1] = { pred: null, target: 0, whenToBranch: false };
  prog[N - 1].target = N;
  prog[N - 1].whenToBranch = false;
  for (let i = N - 1; i--;) {
    const t = prog[i].target;
    if (prog[i].whenToBranch === prog[t].whenToBranch) prog[i].target = prog[t].target;
  }
  for (let i = 0; i < N; i++) prog[i].whenToBranch = inverts[i] !== prog[i].whenToBranch;
  return new EventFilter(str, prog);
}

/** The filter file's text after a rejected write (append_filter_err()). */
export function filterErrorText(str: string, e: ParseError): string {
  let pos = Math.min(e.pos, str.length);
  if (pos) pos++;
  if (e.code > 0) return `${str}\n${'^'.padStart(pos)}\nparse_error: ${FILTER_ERRORS[e.code]}\n`;
  return `${str}\nError: (${e.code})\n`;
}

function regexMatch(type: number, pattern: string, s: string, len: number): boolean {
  switch (type) {
    case MATCH_FRONT_ONLY: return (!len || len >= pattern.length) && s.startsWith(pattern);
    case MATCH_MIDDLE_ONLY: return s.includes(pattern);
    case MATCH_END_ONLY: {
      // regex_match_end() compares at len-1 (for char arrays: the end of the whole field)
      const n = len - 1;
      if (n < pattern.length) return false;
      const buf = s.padEnd(n, '\0');
      return buf.slice(n - pattern.length, n) === pattern;
    }
    case MATCH_GLOB: return globMatch(pattern, s);
    default: return len && len < pattern.length ? false : s === pattern;
  }
}

function predMatch(p: Pred, rec: FilterRec): boolean {
  const f = p.field;
  if (f.kind === 'comm') return regexMatch(p.regexType, p.pattern, rec.comm(), 16) !== p.not;
  if (f.kind === 'static' || f.kind === 'dyn' || f.kind === 'ptr') {
    const { s, len } = rec.str(f);
    return regexMatch(p.regexType, p.pattern, s, f.kind === 'ptr' ? 0 : len) !== p.not;
  }
  const v = f.kind === 'cpu' ? BigInt(rec.cpu()) : rec.num(f);
  let r: boolean;
  switch (p.op) {
    case '==': case '!=': r = v === normalize(p.val, f); return r !== p.not;
    case '<': return v < normalize(p.val, f);
    case '<=': return v <= normalize(p.val, f);
    case '>': return v > normalize(p.val, f);
    case '>=': return v >= normalize(p.val, f);
    case '&': return (BigInt.asUintN(64, v) & BigInt.asUintN(64, p.val)) !== 0n;
  }
  return false;
}

function normalize(v: bigint, f: FilterField): bigint {
  const bits = f.size * 8;
  return f.signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}
