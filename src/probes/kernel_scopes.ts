/**
 * Probe points inside a kernel function's DWARF scope (src/kernel/scopes.ts data):
 *   kernel.function("F").callee("G")    G's inline instances in F (stap 4.8 walks DW_TAG_inlined_subroutine
 *                                        children, through lexical blocks, and lists those with a DW_AT_low_pc;
 *                                        DWARF 5's DW_TAG_call_site is not a tag it knows, so real calls are not
 *                                        callees on this kernel — checked with the oracle on vfs_read,
 *                                        bio_alloc_bioset, ksys_read, submit_bio_noacct)
 *   kernel.function("F").callees[(N)]  every callee down to depth N (pp of a depth-2 callee names its
 *                                        inline caller: kernel.function("__access_ok@...").callee("task_size_max@...")
 *   kernel.function("F").label("L")    a C label: pp kernel.function("F@FILE:LABEL_LINE").label("L")
 * `.callee(G).call` and `.callee(G).return` have no match (the callees are inline instances, which
 * stap 4.8 does not probe with .call/.return).  The statement lines (`F@FILE:N`, `F@FILE+N`,
 * `F@FILE:*`, `F@FILE:N-M`) are `statementLines` here, used by kernel.statement's builder.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { BuildRequest, Provider } from '../elaborate/probes';
import { symbolAddr, symbolName, dwarfName, globToRegExp, parseFuncPattern } from '../kernel/kallsyms';
import { functionScopes, FuncScopes } from '../kernel/scopes';
import { INLINE_FN } from '../kernel/inline_sites';
import { resolveDwarfFunctions, type FuncPointData } from './kernel_function';
import { stapBlacklisted } from './stap_blacklist';

const lit = (s: string): string => JSON.stringify(s);

function noMatch(): SemanticError {
  return new SemanticError('no match');
}

function strArg(c: A.ProbePointComponent | undefined): string {
  return c?.arg && c.arg.k === 'str' ? c.arg.value : '';
}

function inlinePoint(req: BuildRequest, caller: number, name: string, file: string, line: number, offset: number, pp: string): A.ResolvedPoint {
  const data: FuncPointData = {
    kind: 'entry', fn: INLINE_FN, name, addr: symbolAddr(caller) + offset, file, line,
    maxactive: 0, via: 'dwarf', module: 'kernel', optional: req.point.optional, inline: true, caller,
  };
  return { family: 'kernel.function', pp, data: data as unknown as Record<string, unknown> };
}

/** `kernel.function(F).callee(G)[.call|.return]`, `.callees`, `.callees(N)`. */
function calleeBuilder(req: BuildRequest): A.ResolvedPoint[] {
  const comps = req.components;
  const c = comps[2];
  const suffix = comps.slice(3).map((x) => x.name);
  if (suffix.length) throw noMatch();      // .call / .return of inline callees
  let maxDepth = 1;
  let re: RegExp | null = null;
  if (c.name === 'callee') {
    const p = parseFuncPattern(strArg(c));
    re = globToRegExp(p.func);
  } else if (c.arg) {
    maxDepth = c.arg.k === 'num' ? Number(c.arg.value) : 1;
    if (maxDepth < 1) throw new SemanticError('Recursion level must be greater than zero', c.tok);
  }
  const out: A.ResolvedPoint[] = [];
  for (const id of resolveDwarfFunctions(strArg(comps[1]))) {
    const s = functionScopes(symbolName(id));
    if (!s) continue;
    const parents: { name: string; file: string; line: number }[] = [{ name: dwarfName(id), file: s.file, line: s.line }];
    for (const k of s.callees) {
      parents[k.depth] = { name: k.name, file: k.file, line: k.line };
      if (k.depth > maxDepth || !k.lowPc || (re && !re.test(k.name)) || stapBlacklisted(k.name, k.file)) continue;
      const up = parents[k.depth - 1];
      const pp = `kernel.function(${lit(`${up.name}@${up.file}:${up.line}`)}).callee(${lit(`${k.name}@${k.file}:${k.line}`)})`;
      out.push(inlinePoint(req, id, k.name, k.file, k.line, k.offset, pp));
    }
  }
  if (!out.length) throw noMatch();
  return out;
}

/** `kernel.function(F).label(L)` */
function labelBuilder(req: BuildRequest): A.ResolvedPoint[] {
  const comps = req.components;
  const re = globToRegExp(strArg(comps[2]));
  const out: A.ResolvedPoint[] = [];
  for (const id of resolveDwarfFunctions(strArg(comps[1]))) {
    const s = functionScopes(symbolName(id));
    for (const l of s?.labels ?? []) {
      if (!re.test(l.name)) continue;
      const name = dwarfName(id);
      const data: FuncPointData = {
        kind: 'entry', fn: -1, name, addr: symbolAddr(id) + l.offset, file: s!.file, line: l.line,
        maxactive: 0, via: 'statement', module: 'kernel', optional: req.point.optional,
      };
      // -L: the variables DWARF locates at the label (kernel_function.ts varsOf shows these)
      (data as unknown as { labelVars: { name: string; type: string }[] }).labelVars = l.vars.map(([n, t]) => ({ name: '$' + n, type: stapType(t) }));
      out.push({ family: 'kernel.function', pp: `kernel.function(${lit(`${name}@${s!.file}:${l.line}`)}).label(${lit(l.name)})`, data: data as unknown as Record<string, unknown> });
    }
  }
  if (!out.length) throw noMatch();
  return out;
}

/** A DWARF type name as stap -L prints it ('bio *' -> 'struct bio*'; typedefs and base types as they are). */
function stapType(t: string): string {
  const m = /^([A-Za-z_][\w ]*?)(\s*\*+)$/.exec(t);
  const base = m ? m[1] : t;
  const stars = m ? m[2].replace(/\s/g, '') : '';
  const known = /^(void|char|short|int|long|unsigned|signed|_Bool|bool|[a-z0-9_]+_t|u8|u16|u32|u64|s8|s16|s32|s64|__u\d+|__s\d+|__le\d+|__be\d+)\b/.test(base);
  return (known || base.includes(' ') ? base : `struct ${base}`) + stars;
}

/**
 * The lines of `F@FILE:N`, `F@FILE+N` (N after F's declaration line), `F@FILE:N-M` and `F@FILE:*`
 * that have line records: [function id, line, offset][]; null when the spec has no line part.
 */
export function statementLines(spec: string): { id: number; line: number; offset: number; file: string }[] | null {
  const m = /^(.*@[^:+]*)(?::(\*|\d+)(?:-(\d+))?|\+(\d+))$/.exec(spec);
  if (!m) return null;
  const out: { id: number; line: number; offset: number; file: string }[] = [];
  for (const id of resolveDwarfFunctions(m[1])) {
    const s: FuncScopes | undefined = functionScopes(symbolName(id));
    if (!s) continue;
    let lo: number, hi: number;
    if (m[4] !== undefined) lo = hi = s.line + Number(m[4]);
    else if (m[2] === '*') [lo, hi] = [0, Infinity];
    else [lo, hi] = [Number(m[2]), m[3] !== undefined ? Number(m[3]) : Number(m[2])];
    for (const [line, offset] of s.lines) if (line >= lo && line <= hi) out.push({ id, line, offset, file: s.file });
  }
  return out;
}

const calleeProvider = (base: Provider): Provider => ({ ...base, build: calleeBuilder });

/**
 * kernel.statement("F@FILE:N" | "F@FILE+N" | ...) from the line records where F's unit has them
 * (pp `kernel.statement("bio_init@block/bio.c:244")`, stap's `no match` for a line without
 * records); other specs and functions without data go to `base` (entry = declaration line).
 */
export function withStatementLines(base: Provider): Provider {
  return {
    ...base,
    build: (req) => {
      const spec = strArg(req.components[1]);
      const rows = req.components[1].arg?.k === 'str' ? statementLines(spec) : null;
      if (rows === null || (!rows.length && !resolveDwarfFunctions(spec.replace(/(:[^:]*|\+\d+)$/, '')).some((id) => functionScopes(symbolName(id))))) return base.build(req);
      if (!rows.length) throw noMatch();
      const rest = req.components.slice(2).map((c) => '.' + c.name).join('');
      return rows.map((r) => {
        const name = dwarfName(r.id);
        const data: FuncPointData = {
          kind: 'entry', fn: r.offset === 0 ? r.id : -1, name, addr: symbolAddr(r.id) + r.offset, file: r.file, line: r.line,
          maxactive: 0, via: 'statement', module: 'kernel', optional: req.point.optional,
        };
        return { family: 'kernel.function', pp: `kernel.statement(${lit(`${name}@${r.file}:${r.line}`)})${rest}`, data: data as unknown as Record<string, unknown> };
      });
    },
  };
}

/** Patterns of these points, given the kernel.function provider whose variables/typing they share. */
export function scopePatterns(base: Provider): [string, Provider][] {
  const callee = calleeProvider(base);
  const label: Provider = { ...base, build: labelBuilder };
  return [
    ['kernel.function(string).callee(string)', callee],
    ['kernel.function(string).callee(string).call', callee],
    ['kernel.function(string).callee(string).return', callee],
    ['kernel.function(string).callees', callee],
    ['kernel.function(string).callees(number)', callee],
    ['kernel.function(string).label(string)', label],
  ];
}
