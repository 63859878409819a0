/**
 * Kernel call paths as data.
 *
 * A path template is indented text, one node per line (two spaces per level):
 *
 *   name                 a call into kernel function `name` (children are its callees)
 *   @system:event        fire tracepoint `event` here (system given for checking; `@name` for
 *                        DECLARE_TRACE-only tracepoints)
 *   %hook                run a TS hook (semantics: page cache lookup, block, wake up ...)
 *   ?cond / ?!cond       children run only when the condition (a TS predicate) holds / fails
 *   +name[:L1,L2]        the entry of an inline instance of `name` (a function inlined into the
 *                        enclosing function at run time, see kernel/inline_sites.ts): its int3
 *                        site fires here: the enclosing function's instance called from one of
 *                        the call lines given, else its first instance (none: nothing fires).
 *                        Children are the inline body
 *   *path                expand another template here (compile-time include)
 *   &key                 run a recorded variant of entry-model key `key` here (paths/model.ts)
 *   # ...                comment
 *
 * Templates compile to an Int32Array program run by kexec.ts (see OP_* below). Function names
 * are resolved to kallsyms ids; the test in test/machine/machine.test.ts checks that every name in
 * every template is a 6.1 text symbol and every tracepoint exists.
 */
import { functionId } from '../../kernel/ftrace';
import type { CompiledPath } from '../include/kstack';
import { TEMPLATES } from './templates';
import { builtTemplateTableFile, readTemplateTable, includesOf, type BuiltTemplate, type TemplateNames, type TemplateTable } from './template_table';

export type { CompiledPath };

export const OP_RET = -1;
export const OP_TP = -2;
export const OP_HOOK = -3;
export const OP_IF = -4;
export const OP_IFNOT = -5;
export const OP_END = -6;
export const OP_INLINE = -7;
/** OP_REPEAT rule n other end: run the body up to the matching OP_LOOP as often as count rule `rule` says less `other` (-1: n times) */
export const OP_REPEAT = -8;
/** OP_LOOP start: the end of a repeated body */
export const OP_LOOP = -9;
/** OP_MODEL key: run a variant of entry-model key `modelKeyNames[key]` here (paths/model.ts) */
export const OP_MODEL = -10;
/** OP_SUB chunk: run the callees compiled lazily as chunk `chunk` here (paths/compile.ts chunkCode) */
export const OP_SUB = -11;

const sources = new Map<string, string>();
let templatesLoaded = false;

/** The template sources, the hand-written templates (./templates) added on first use. */
function allSources(): Map<string, string> {
  if (!templatesLoaded) {
    templatesLoaded = true;
    for (const t of TEMPLATES) definePaths(t);
  }
  return sources;
}
const compiled = new Map<string, CompiledPath>();

/** Tracepoint references: index -> "system:name" (system may be ''). */
export const tpNames: string[] = [];
const tpIndex_ = new Map<string, number>();
/** Inline instance references: index -> { name, call lines (empty: any) }. */
export const inlineRefs: { name: string; lines: number[] }[] = [];
const inlineIndex = new Map<string, number>();
/** Hook and condition names, indexed. */
export const hookNames: string[] = [];
const hookIndex_ = new Map<string, number>();
export const condNames: string[] = [];
/** Entry-model keys the templates run (`&key`), indexed. */
export const modelKeyNames: string[] = [];
const modelKeyIndex = new Map<string, number>();
const condIndex = new Map<string, number>();

function intern(list: string[], idx: Map<string, number>, name: string): number {
  let i = idx.get(name);
  if (i === undefined) { i = list.length; list.push(name); idx.set(name, i); }
  return i;
}

/** The index of hook `name` in the programs (OP_HOOK operand). */
export function hookIndex(name: string): number {
  return intern(hookNames, hookIndex_, name);
}
/** The index of tracepoint `system:name` (or `name`) in the programs (OP_TP operand). */
export function tpIndex(name: string): number {
  return intern(tpNames, tpIndex_, name);
}
/** The index of an inline reference (`+name[:lines]`; OP_INLINE operand). */
export function inlineRefIndex(name: string, lines: readonly number[]): number {
  const t = lines.length ? `+${name}:${lines.join(',')}` : `+${name}`;
  let i = inlineIndex.get(t);
  if (i === undefined) {
    i = inlineRefs.length;
    inlineRefs.push({ name, lines: [...lines] });
    inlineIndex.set(t, i);
  }
  return i;
}

/** Register templates: a record of name -> template text. */
export function definePaths(defs: Record<string, string>): void {
  const all = allSources();
  for (const [k, v] of Object.entries(defs)) {
    if (all.has(k)) throw new Error(`path ${k} defined twice`);
    all.set(k, v);
  }
}

export function pathNames(): string[] {
  return [...allSources().keys()];
}

export function pathSource(name: string): string {
  const s = allSources().get(name);
  if (s === undefined) throw new Error(`no kernel path '${name}'`);
  return s;
}

interface Node { text: string; kids: Node[] }

/** Parsed templates (read-only trees; an include shares its nodes with every includer). */
const trees = new Map<string, Node[]>();

function parseTree(name: string, src: string, seen: string[]): Node[] {
  let t = trees.get(name);
  if (t && allSources().get(name) === src) return t;
  t = parseText(name, src, seen);
  trees.set(name, t);
  return t;
}

/** White space as String.prototype.trim removes it (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function parseText(name: string, src: string, seen: string[]): Node[] {
  const root: Node = { text: '', kids: [] };
  const stack: { ind: number; node: Node }[] = [{ ind: -1, node: root }];
  for (const raw of src.split('\n')) {
    // the line without its comment and surrounding white space (what trim removes), its indent
    let end = raw.indexOf('#');
    if (end < 0) end = raw.length;
    while (end > 0 && isSpace(raw.charCodeAt(end - 1))) end--;
    let ind = 0;
    while (ind < end && isSpace(raw.charCodeAt(ind))) ind++;
    if (ind === end) continue;
    const text = raw.slice(ind, end);
    while (stack[stack.length - 1].ind >= ind) stack.pop();
    const parent = stack[stack.length - 1].node;
    if (text.startsWith('*')) {
      const inc = text.slice(1);
      if (seen.includes(inc)) throw new Error(`path ${name}: recursive include of ${inc}`);
      const sub = parseTree(inc, pathSource(inc), [...seen, inc]);
      parent.kids.push(...sub);
      continue;
    }
    const node = { text, kids: [] };
    parent.kids.push(node);
    stack.push({ ind, node });
  }
  return root.kids;
}

/** Every node text of a template with includes expanded (for the symbol check). */
export function pathItems(name: string): string[] {
  const out: string[] = [];
  const walk = (ns: Node[]) => { for (const n of ns) { out.push(n.text); walk(n.kids); } };
  walk(parseTree(name, pathSource(name), [name]));
  return out;
}

/** The kernel function names a template calls (includes expanded), in order, repeated. */
export function pathFunctionNames(name: string): string[] {
  return pathItems(name).filter((t) => t[0] !== '@' && t[0] !== '%' && t[0] !== '?' && t[0] !== '+' && t[0] !== '&');
}

/** Compile (once) and return a path: the build's program (paths/template_table.ts) when current, else from the text. */
export function path(name: string): CompiledPath {
  let c = compiled.get(name);
  if (c) return c;
  c = builtTemplate(name) ?? compilePath(name);
  compiled.set(name, c);
  return c;
}

let table: TemplateTable | null | undefined;
/** the table's operand numbers -> this process's (-1: not yet), by kind: tracepoint, hook, condition, inline reference, model key */
let renumber: Int32Array[] | null = null;

/**
 * The build's program of template `name` with its operands renumbered to this process's, or null
 * (no current one).  Operands are numbered in program order, as compiling the text would.
 */
export function builtTemplate(name: string): CompiledPath | null {
  if (table === undefined) table = readTemplateTable(builtTemplateTableFile(), (n) => allSources().get(n));
  const p = table?.program(name);
  if (!p) return null;
  const n = table!.names;
  const r = renumber ?? (renumber = [n.tp, n.hook, n.cond, n.inl, n.model].map((l) => new Int32Array(l.length).fill(-1)));
  const { code, at } = p;
  for (let j = 0; j < at.length; j++) {
    const pc = at[j];
    const op = code[pc - 1];
    const i = code[pc];
    const k = op === OP_TP ? 0 : op === OP_HOOK ? 1 : op === OP_IF || op === OP_IFNOT ? 2 : op === OP_INLINE ? 3 : 4;
    let v = r[k][i];
    if (v < 0) {
      v = r[k][i] = k === 0 ? tpIndex(n.tp[i]) : k === 1 ? hookIndex(n.hook[i]) : k === 2 ? intern(condNames, condIndex, n.cond[i])
        : k === 3 ? inlineRefIndex(n.inl[i][0], n.inl[i][1]) : intern(modelKeyNames, modelKeyIndex, n.model[i]);
    }
    code[pc] = v;
  }
  return { name, code };
}

/**
 * Build step (paths/template_table.ts): every template that compiles, with the positions of its
 * renumbered operands and the templates it was compiled from, and the numbering they use.
 */
export function templatesForBuild(): { programs: BuiltTemplate[]; names: TemplateNames } {
  const programs: BuiltTemplate[] = [];
  for (const name of pathNames()) {
    let code: Int32Array;
    try {
      code = compilePath(name).code;
    } catch {
      continue; // runs compile it from the text, and fail there as before
    }
    const at: number[] = [];
    for (let pc = 0; pc < code.length;) {
      const op = code[pc++];
      if (op >= 0 || op === OP_RET || op === OP_END) continue;
      if (op === OP_TP || op === OP_HOOK || op === OP_INLINE || op === OP_MODEL) at.push(pc++);
      else if (op === OP_IF || op === OP_IFNOT) { at.push(pc); pc += 2; }
      else throw new Error(`path ${name}: opcode ${op} in a template`);
    }
    const deps = new Set([name]);
    for (const d of deps) for (const inc of includesOf(pathSource(d))) deps.add(inc);
    programs.push({ name, deps: [...deps], code, at: Int32Array.from(at) });
  }
  const names = { tp: [...tpNames], hook: [...hookNames], cond: [...condNames], inl: inlineRefs.map((r): [string, number[]] => [r.name, [...r.lines]]), model: [...modelKeyNames] };
  return { programs, names };
}

/** A template compiled from its text (includes expanded). */
export function compilePath(name: string): CompiledPath {
  const code: number[] = [];
  const emit = (ns: Node[]) => {
    for (const n of ns) {
      const t = n.text;
      const c0 = t[0];
      if (c0 === '@') {
        code.push(OP_TP, tpIndex(t.slice(1)));
        if (n.kids.length) throw new Error(`path ${name}: tracepoint ${t} cannot have children`);
      } else if (c0 === '%') {
        code.push(OP_HOOK, hookIndex(t.slice(1)));
        emit(n.kids);
      } else if (c0 === '+') {
        const m = /^\+([A-Za-z_]\w*)(?::(\d+(?:,\d+)*))?$/.exec(t);
        if (!m) throw new Error(`path ${name}: bad inline node ${t}`);
        code.push(OP_INLINE, inlineRefIndex(m[1], m[2] ? m[2].split(',').map(Number) : []));
        emit(n.kids);
      } else if (c0 === '&') {
        code.push(OP_MODEL, intern(modelKeyNames, modelKeyIndex, t.slice(1)));
        if (n.kids.length) throw new Error(`path ${name}: model node ${t} cannot have children`);
      } else if (c0 === '?') {
        const neg = t[1] === '!';
        code.push(neg ? OP_IFNOT : OP_IF, intern(condNames, condIndex, t.slice(neg ? 2 : 1)), 0);
        const patch = code.length - 1;
        emit(n.kids);
        code[patch] = code.length;
      } else {
        const fn = functionId(t);
        if (fn < 0) throw new Error(`path ${name}: ${t} is not a kernel symbol`);
        code.push(fn);
        emit(n.kids);
        code.push(OP_RET);
      }
    }
  };
  emit(parseTree(name, pathSource(name), [name]));
  code.push(OP_END);
  return { name, code: Int32Array.from(code) };
}
