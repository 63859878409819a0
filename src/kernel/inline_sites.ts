/**
 * Inline instances of kernel functions (DWARF DW_TAG_inlined_subroutine), from
 * data/kernel/inline_sites.gz (scripts/kernel-data/inline_sites.py): for each inlined function its
 * abstract definition (name, decl file:line, formal parameters with their DWARF type names) and
 * its instances — the entry pc inside the containing (caller) symbol and the call site file:line.
 *
 * The data covers the inline instances inside the functions the machine model runs (the compile
 * units of those functions were scanned); the abstract definitions of every other inline function
 * are in inlines.gz (kallsyms.ts `inlineFunctions()`) without instances.
 */
import { readDataText, noteParseTime } from './data';
import { lookupName, isFunction, symbolAddr, globToRegExp, hasGlob, fileMatches, FuncPattern } from './kallsyms';
import { btfLookupType } from './btf';

/** The function id (`KHit.fn`, `FuncPointData.fn`) of a hit on an inline instance: it has no symbol of its own. */
export const INLINE_FN = -2;

export interface InlineParam {
  name: string;
  /** the type as DWARF names it ('sock *', 'const sk_buff *', 'gfp_t') */
  dwarfType: string;
}

export interface InlinedFunction {
  name: string;
  file: string;
  line: number;
  params: InlineParam[];
  instances: InlineInstance[];
}

export interface InlineInstance {
  fn: InlinedFunction;
  /** kallsyms id of the symbol containing the instance */
  caller: number;
  /** entry pc (DW_AT_entry_pc) */
  addr: number;
  callFile: string;
  callLine: number;
}

let funcs: InlinedFunction[] | null = null;
let byName: Map<string, InlinedFunction[]> | null = null;
let byCaller: Map<number, InlineInstance[]> | null = null;

let raw: string | null = null;
function rawText(): string {
  if (raw === null) raw = readDataText('inline_sites.gz');
  return raw;
}

function load(): InlinedFunction[] {
  if (funcs) return funcs;
  const text = rawText();
  raw = null;
  const t0 = Date.now();
  funcs = [];
  byName = new Map();
  byCaller = new Map();
  let cur: InlinedFunction | null = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split('\t');
    if (f[0] === 'F') {
      const params = f[4] ? f[4].split(';').map((p) => {
        const c = p.indexOf(':');
        return { name: p.slice(0, c), dwarfType: p.slice(c + 1) };
      }) : [];
      cur = { name: f[1], file: f[2], line: Number(f[3]), params, instances: [] };
      funcs.push(cur);
      let l = byName.get(cur.name);
      if (!l) byName.set(cur.name, (l = []));
      l.push(cur);
    } else if (f[0] === 'S' && cur) {
      const caller = lookupName(f[1]).find(isFunction);
      if (caller === undefined) continue;
      const inst: InlineInstance = { fn: cur, caller, addr: symbolAddr(caller) + parseInt(f[2], 16), callFile: f[3], callLine: Number(f[4]) };
      cur.instances.push(inst);
      let l = byCaller.get(caller);
      if (!l) byCaller.set(caller, (l = []));
      l.push(inst);
    }
  }
  for (const l of byCaller.values()) l.sort((a, b) => a.addr - b.addr);
  noteParseTime('inline_sites.gz', Date.now() - t0);
  return funcs;
}

/** Inlined functions (with instances) matching a `name[@file[:line]]` pattern, sorted by name, file, line. */
export function matchInlined(p: FuncPattern): InlinedFunction[] {
  // a plain name: when the data has no such inlined function, no need to parse it all
  if (!funcs && !hasGlob(p.func) && !rawText().includes(`\nF\t${p.func}\t`) && !rawText().startsWith(`F\t${p.func}\t`)) return [];
  const all = load();
  let cands: InlinedFunction[];
  if (!hasGlob(p.func)) cands = byName!.get(p.func) ?? [];
  else {
    const re = globToRegExp(p.func);
    cands = all.filter((f) => re.test(f.name));
  }
  if (p.file !== undefined) {
    const fg = p.file;
    cands = cands.filter((f) => fileMatches(fg, f.file) && (p.line === undefined || f.line === p.line));
  }
  return cands;
}

/** The inline instances inside one symbol, address order (empty when none are known). */
export function inlineInstancesIn(caller: number): readonly InlineInstance[] {
  load();
  return byCaller!.get(caller) ?? NONE;
}
const NONE: readonly InlineInstance[] = [];

const btfCache = new Map<string, number>();
/** The BTF type of a DWARF type name ('sock *' -> struct sock *); 0 (void/unknown) when BTF has none. */
export function inlineParamBtf(dwarfType: string): number {
  let id = btfCache.get(dwarfType);
  if (id === undefined) {
    id = btfLookupType(dwarfType) ?? btfLookupType(dwarfType.replace(/\bconst\s+/g, '')) ?? 0;
    btfCache.set(dwarfType, id);
  }
  return id;
}

/** The inlined function `name` declared at file:line (the abstract definition), or null. */
export function inlinedFunction(name: string, file: string, line: number): InlinedFunction | null {
  load();
  return byName!.get(name)?.find((f) => f.file === file && f.line === line) ?? null;
}
