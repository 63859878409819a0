/**
 * What is inside a function's DWARF scope, for `.callee("F")`, `.callees(N)`, `.label("L")` and
 * `kernel.statement("func@file:N" | "func@file+N" | "func@file:*")`: data/kernel/scopes.gz
 * (scripts/kernel-data/scopes.py) — the inline callees (nested, with depth), the labels (with the
 * variables available at them) and the line records of every out-of-line function of the compile
 * units holding the machine model's functions (7,829 functions; the rest of vmlinux's DWARF is not
 * dumped, so other functions have no callees, labels or lines here).
 *
 *   functionScopes('bio_alloc_bioset')   // { file, line, callees, labels, lines }
 */
import { readDataText, noteParseTime } from './data';

export interface InlineCallee {
  /** 1 = a direct callee of the function; d + 1 sits inside the preceding callee of depth d */
  depth: number;
  name: string;
  file: string;
  line: number;
  /** entry pc, from the function's start */
  offset: number;
  callFile: string;
  callLine: number;
  /** the instance has DW_AT_low_pc (false: only DW_AT_ranges, which stap 4.8 does not list as a callee) */
  lowPc: boolean;
}

export interface ScopeLabel {
  name: string;
  line: number;
  offset: number;
  /** variables in scope with a location at the label: [name, DWARF type] */
  vars: [string, string][];
}

export interface FuncScopes {
  file: string;
  line: number;
  callees: InlineCallee[];
  labels: ScopeLabel[];
  /** [line, offset of its lowest address], ascending lines */
  lines: [number, number][];
}

let table: Map<string, FuncScopes> | null = null;

function load(): Map<string, FuncScopes> {
  if (table) return table;
  const text = readDataText('scopes.gz');
  const t0 = Date.now();
  table = new Map();
  let cur: FuncScopes | null = null;
  for (const row of text.split('\n')) {
    if (!row) continue;
    const f = row.split('\t');
    switch (f[0]) {
      case 'F':
        cur = { file: f[2], line: Number(f[3]), callees: [], labels: [], lines: [] };
        table.set(f[1], cur);
        break;
      case 'I':
        cur?.callees.push({
          depth: Number(f[1]), name: f[2], file: f[3], line: Number(f[4]), offset: parseInt(f[5], 16),
          callFile: f[6], callLine: Number(f[7]), lowPc: f[8] !== 'r',
        });
        break;
      case 'L':
        cur?.labels.push({
          name: f[1], line: Number(f[2]), offset: parseInt(f[3], 16),
          vars: f[4] ? f[4].split(';').map((v) => { const i = v.indexOf(':'); return [v.slice(0, i), v.slice(i + 1)] as [string, string]; }) : [],
        });
        break;
      case 'N': {
        if (!cur) break;
        let line = cur.line;
        for (const p of f[1].split(',')) {
          const i = p.indexOf(':');
          line += Number(p.slice(0, i));
          cur.lines.push([line, parseInt(p.slice(i + 1), 16)]);
        }
        break;
      }
    }
  }
  noteParseTime('scopes.gz', Date.now() - t0);
  return table;
}

/** The scopes of an out-of-line function (by its kallsyms name), if its compile unit was dumped. */
export function functionScopes(symbol: string): FuncScopes | undefined {
  return load().get(symbol);
}
