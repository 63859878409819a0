/**
 * `stap -p1`: print parsed files in SystemTap's canonical form (staptree.cxx's print methods):
 * binary operands parenthesised, one statement per line followed by `;`, `while` as `for`,
 * declarations in the order embeds, globals, aliases, probes, functions.
 */
import type * as A from '../ast';
import { chainOperands, chainText } from './chains';

function lit(v: A.Long): string {
  return typeof v === 'bigint' ? v.toString() : String(v);
}

function escapeFormat(raw: string): string {
  return raw.replace(/[\\"]/g, '\\$&');
}

function strRaw(e: A.StringLit): string {
  return `"${e.raw ?? e.value.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n')}"`;
}

function components(cs: A.TargetComponent[]): string {
  return cs.map((c) => (c.k === 'member' ? `->${c.name}` : `[${expr(c.index)}]`)).join('');
}

function pretty(p: 0 | 1 | 2): string {
  return p ? '->' + '$'.repeat(p) : '';
}

function idx(e: A.Expr | null): string {
  return e === null ? '*' : expr(e);
}

export function expr(e: A.Expr): string {
  switch (e.k) {
    case 'num': return lit(e.value);
    case 'str': return strRaw(e);
    case 'binary': case 'logical': case 'concat': {
      const chain = chainOperands(e);
      if (chain) return chainText(e, chain, expr);
      return `(${expr(e.left)}) ${e.k === 'concat' ? '.' : e.op} (${expr(e.right)})`;
    }
    case 'compare': return `(${expr(e.left)}) ${e.op} (${expr(e.right)})`;
    case 'regex': return `(${expr(e.left)}) ${e.op} ${strRaw(e.right)}`;
    case 'unary': return `${e.op}(${expr(e.operand)})`;
    case 'incdec': return e.prefix ? `${e.op}(${expr(e.operand)})` : `(${expr(e.operand)})${e.op}`;
    case 'ternary': return `(${expr(e.cond)})?(${expr(e.then)}):(${expr(e.else)})`;
    case 'assign': return `(${expr(e.target)}) ${e.op} (${expr(e.value)})`;
    case 'sym': return e.name;
    case 'index': return `${e.base.k === 'sym' ? e.base.name : expr(e.base)}[${e.indexes.map(idx).join(', ')}]`;
    case 'call': return `${e.name}(${e.args.map(expr).join(', ')})`;
    case 'print': {
      const parts: string[] = [];
      if (e.format !== undefined || e.delim !== undefined) parts.push(`"${escapeFormat(e.formatRaw ?? e.format ?? e.delim ?? '')}"`);
      if (e.hist) parts.push(expr(e.hist));
      for (const a of e.args) parts.push(expr(a));
      return `${e.name}(${parts.join(', ')})`;
    }
    case 'statop': return `@${e.op}(${expr(e.operand)}${e.shift !== undefined ? `, ${e.shift}` : ''})`;
    case 'hist':
      return e.kind === 'log' ? `@hist_log(${expr(e.operand)})`
        : `@hist_linear(${expr(e.operand)}, ${e.params.map(lit).join(', ')})`;
    case 'in': return `[${e.keys.map(idx).join(', ')}] in ${e.array.name}`;
    case 'target': return `${e.addressOf ? '&' : ''}${e.name}${components(e.components)}${pretty(e.pretty)}`;
    case 'cast':
      return `${e.addressOf ? '&' : ''}@cast(${expr(e.operand)}, "${e.typeName}"${e.module !== undefined ? `, "${e.module}"` : ''})${components(e.components)}${pretty(e.pretty)}`;
    case 'atvar':
      return `${e.addressOf ? '&' : ''}@var("${e.varName}"${e.module !== undefined ? `, "${e.module}"` : ''})${components(e.components)}${pretty(e.pretty)}`;
    case 'autocast': return `${e.addressOf ? '&' : ''}(${expr(e.operand)})${components(e.components)}`;
    case 'entry': return `@entry(${expr(e.operand)})`;
    case 'defined': return `@defined(${expr(e.operand)})`;
    case 'atop': return `${e.name}(${e.args.map(expr).join(', ')})`;
    case 'embedded': return `%{ ${e.code} %}`;
  }
}

export function stmt(s: A.Stmt): string {
  switch (s.k) {
    case 'block': return block(s);
    case 'expr': return expr(s.expr);
    case 'null': return ';';
    case 'if': return `if (${expr(s.cond)}) ${stmt(s.then)}\n` + (s.else ? `else ${stmt(s.else)}\n` : '');
    case 'while': return `for (; ${expr(s.cond)}; ) ${stmt(s.body)}`;
    case 'for':
      return `for (${s.init ? expr(s.init) : ''}; ${s.cond ? expr(s.cond) : '1'}; ${s.incr ? expr(s.incr) : ''}) ${stmt(s.body)}`;
    case 'foreach': {
      let o = 'foreach (';
      if (s.value) o += `${s.value.name} = `;
      o += '[' + s.keys.map((k, i) => k.name + (s.sortDirection && s.sortColumn === i + 1 ? (s.sortDirection > 0 ? '+' : '-') : '')).join(', ') + '] in ';
      o += s.array.k === 'sym' ? s.array.name : expr(s.array);
      if (s.slice) o += `[${s.slice.map(idx).join(', ')}]`;
      if (s.sortDirection && s.sortColumn === 0) {
        if (s.sortAggregate) o += ` @${s.sortAggregate}`;
        o += s.sortDirection > 0 ? '+' : '-';
      }
      if (s.limit) o += ` limit ${expr(s.limit)}`;
      return o + ') ' + stmt(s.body);
    }
    case 'return': return s.value ? `return ${expr(s.value)}` : 'return';
    case 'next': return 'next';
    case 'break': return 'break';
    case 'continue': return 'continue';
    case 'delete': return `delete ${expr(s.target)}`;
    case 'try':
      return `try {\n${block(s.body)}\n} catch${s.catchVar ? ` (${s.catchVar.name})` : ''} {\n${block(s.handler)}\n}\n`;
  }
}

export function block(b: A.Block): string {
  return '{\n' + b.stmts.map((s) => stmt(s) + ';\n').join('') + '}';
}

export function probePoint(p: A.ProbePoint): string {
  let o = p.components.map((c) => c.name + (c.arg ? `(${c.arg.k === 'str' ? strRaw(c.arg) : lit(c.arg.value)})` : '')).join('.');
  if (p.sufficient) o += '!';
  else if (p.optional) o += '?';
  if (p.condition) o += ` if (${expr(p.condition)})`;
  return o;
}

function globalDecl(v: A.VarDecl): string {
  let o = `global ${v.name}`;
  if (v.wrap) o += '%';
  if (v.maxSize !== undefined) o += `[${v.maxSize}]`;
  if (v.init) o += ` = ${v.init.k === 'str' ? `"${v.init.raw ?? v.init.value}"` : lit(v.init.value)}`;
  return o;
}

function functionDecl(f: A.FunctionDecl): string {
  const head = `function ${f.name} (${f.params.map((p) => p.name).join(', ')})\n`;
  if (f.body.k === 'embedded') return head + `%{${f.body.code}%}\n`;
  return head + block(f.body) + '\n';
}

export function printFile(f: A.StapFile): string {
  let o = `# file ${f.file.name}\n`;
  for (const e of f.embeds) o += `%{${e.code}%}`;
  for (const g of f.globals) o += globalDecl(g) + '\n';
  for (const a of f.aliases) {
    o += `probe ${a.names.map(probePoint).join(' = ')} ${a.epilogue && !a.prologue ? '+=' : '='} ${a.points.map(probePoint).join(', ')}`;
    o += block(a.prologue ?? a.epilogue!) + '\n';
  }
  for (const p of f.probes) o += `probe ${p.points.map(probePoint).join(',')}` + block(p.body) + '\n';
  for (const fn of f.functions) o += functionDecl(fn);
  return o;
}
