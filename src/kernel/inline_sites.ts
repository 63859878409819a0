/**
 * Inline instances of kernel functions (DWARF DW_TAG_inlined_subroutine), from
 * data/kernel/inline_sites.gz (scripts/kernel-data/inline_sites.py): for each inlined function its
 * abstract definition (name, decl file:line, formal parameters with their DWARF type names) and
 * its instances — the entry pc inside the containing (caller) symbol and the call site file:line.
 *
 * For vmlinux the data covers the inline instances inside the functions the machine model runs (the
 * compile units of those functions were scanned); the abstract definitions of every other inline
 * function are in inlines.gz (kallsyms.ts `inlineFunctions()`) without instances. For the loaded
 * modules (module_inlines.gz, scripts/kernel-data/module_inlines.py) every instance in core text;
 * for the installed-but-unloaded ones (module_inlines_installed.gz) the same at the layout
 * modules.py gives them.  A module("M") probe reads only the file of M.
 */
import { readDataText, noteParseTime } from './data';
import { lookupName, isFunction, symbolAddr, globToRegExp, hasGlob, fileMatches, FuncPattern, symbolModule, knownModules } from './kallsyms';
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
  /** the module it is inlined in ('' for vmlinux) */
  module: string;
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

/** The inline data of vmlinux (inline_sites.gz) or of the modules (module_inlines*.gz). */
interface Store {
  funcs: InlinedFunction[];
  byName: Map<string, InlinedFunction[]>;
  byCaller: Map<number, InlineInstance[]>;
}

const VMLINUX = 'inline_sites.gz';
const LOADED = 'module_inlines.gz';
const INSTALLED = 'module_inlines_installed.gz';
const stores = new Map<string, Store>();
/** the data text until it is parsed (a plain name absent from it needs no parse) */
const rawTexts = new Map<string, string>();
function rawText(file: string): string {
  let t = rawTexts.get(file);
  if (t === undefined) rawTexts.set(file, (t = readDataText(file)));
  return t;
}

/**
 * Parse F/S lines (and, in module_inlines.gz, `M name` lines naming the module that the following
 * functions and callers belong to).
 */
function parse(file: string): Store {
  const text = rawText(file);
  rawTexts.delete(file);
  const t0 = Date.now();
  const st: Store = { funcs: [], byName: new Map(), byCaller: new Map() };
  let cur: InlinedFunction | null = null;
  let mod = '';
  const callers = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split('\t');
    if (f[0] === 'M') {
      mod = f[1];
      cur = null;
    } else if (f[0] === 'F') {
      const params = f[4] ? f[4].split(';').map((p) => {
        const c = p.indexOf(':');
        return { name: p.slice(0, c), dwarfType: p.slice(c + 1) };
      }) : [];
      cur = { name: f[1], file: f[2], line: Number(f[3]), params, instances: [], module: mod };
      st.funcs.push(cur);
      let l = st.byName.get(cur.name);
      if (!l) st.byName.set(cur.name, (l = []));
      l.push(cur);
    } else if (f[0] === 'S' && cur) {
      // (the ~17 000 instances have ~600 callers: each caller's name is looked up once)
      const ck = mod + '\t' + f[1];
      let caller = callers.get(ck);
      if (caller === undefined) callers.set(ck, (caller = lookupName(f[1]).find((id) => isFunction(id) && symbolModule(id) === mod) ?? -1));
      if (caller < 0) continue;
      const inst: InlineInstance = { fn: cur, caller, addr: symbolAddr(caller) + parseInt(f[2], 16), callFile: f[3], callLine: Number(f[4]) };
      cur.instances.push(inst);
      let l = st.byCaller.get(caller);
      if (!l) st.byCaller.set(caller, (l = []));
      l.push(inst);
    }
  }
  for (const l of st.byCaller.values()) l.sort((a, b) => a.addr - b.addr);
  noteParseTime(file, Date.now() - t0);
  return st;
}

function store(file: string): Store {
  let st = stores.get(file);
  if (!st) stores.set(file, (st = parse(file)));
  return st;
}

/** The data files a scope (`kernel`, a module name or a module glob) needs. */
function filesOf(scope: string): string[] {
  if (scope === 'kernel') return [VMLINUX];
  if (hasGlob(scope)) return [LOADED, INSTALLED];
  const m = knownModules().find((k) => k.name === scope);
  return m ? [m.loaded ? LOADED : INSTALLED] : [];
}

/**
 * Inlined functions (with instances) matching a `name[@file[:line]]` pattern, sorted by name,
 * file, line: of vmlinux (scope 'kernel', the default) or of the modules a module("M") argument
 * names (a name or a glob).
 */
export function matchInlined(p: FuncPattern, scope: string = 'kernel'): InlinedFunction[] {
  let cands: InlinedFunction[] = [];
  for (const file of filesOf(scope)) {
    // a plain name: when the data has no such inlined function, no need to parse it all
    if (!stores.has(file) && !hasGlob(p.func)) {
      const raw = rawText(file);
      if (!raw.includes(`\nF\t${p.func}\t`) && !raw.startsWith(`F\t${p.func}\t`)) continue;
    }
    const st = store(file);
    if (!hasGlob(p.func)) cands = cands.concat(st.byName.get(p.func) ?? []);
    else {
      const re = globToRegExp(p.func);
      cands = cands.concat(st.funcs.filter((f) => re.test(f.name)));
    }
  }
  if (scope !== 'kernel') {
    const mre = hasGlob(scope) ? globToRegExp(scope) : null;
    cands = cands.filter((f) => (mre ? mre.test(f.module) : f.module === scope));
  }
  if (p.file !== undefined) {
    const fg = p.file;
    cands = cands.filter((f) => fileMatches(fg, f.file) && (p.line === undefined || f.line === p.line));
  }
  return cands;
}

/** The inline instances inside one symbol, address order (empty when none are known). */
export function inlineInstancesIn(caller: number): readonly InlineInstance[] {
  const mod = symbolModule(caller);
  const file = mod === '' ? VMLINUX : knownModules().find((k) => k.name === mod)?.loaded === false ? INSTALLED : LOADED;
  return store(file).byCaller.get(caller) ?? NONE;
}
const NONE: readonly InlineInstance[] = [];

const btfCache = new Map<string, number>();
/** The BTF type of a DWARF type name ('sock *' -> struct sock *); 0 (void/unknown) when BTF has none. */
export function inlineParamBtf(dwarfType: string): number {
  let id = btfCache.get(dwarfType);
  if (id === undefined) {
    // (a qualified pointer `char *const` falls back to its unqualified type: BTF names no qualifiers)
    id = btfLookupType(dwarfType) ?? btfLookupType(dwarfType.replace(/\bconst\s+/g, ''))
      ?? btfLookupType(dwarfType.replace(/\s*\bconst\b\s*/g, ' ').trim()) ?? 0;
    btfCache.set(dwarfType, id);
  }
  return id;
}

/** The inlined function `name` declared at file:line (the abstract definition) of vmlinux or a module, or null. */
export function inlinedFunction(name: string, file: string, line: number, module = ''): InlinedFunction | null {
  const files = module === '' || module === 'kernel' ? [VMLINUX] : filesOf(module);
  const mod = module === 'kernel' ? '' : module;
  for (const data of files) {
    const f = store(data).byName.get(name)?.find((x) => x.file === file && x.line === line && x.module === mod);
    if (f) return f;
  }
  return null;
}
