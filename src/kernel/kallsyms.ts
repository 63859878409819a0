/**
 * kallsyms: the kernel symbol table of Debian's 6.1.0-56-amd64 vmlinux (System.map of the -dbg
 * package, which is what /proc/kallsyms lists on that kernel), plus source file:line of functions
 * (DWARF DW_AT_decl_file/decl_line of the out-of-line body) and the kprobe blacklist.
 *
 * Symbol ids are dense integers: the index of the symbol in System.map order (ascending unsigned
 * address). They are the "function ids" of the simulated kernel (see ftrace.ts / README.md).
 *
 * Addresses are JS numbers holding the signed 64-bit value (0xffffffff81000000 is
 * -0x7f000000), which is exact for every kernel address; use addrHex()/addrToBigInt() to print or
 * do 64-bit arithmetic.
 */
import { readDataText, noteParseTime } from './data';
import { openSymtab, Symtab, KModule, nameHashOf } from './ksymtab';
import { knownFirstAlias, knownSysModules, knownSymbolName } from './known_symbols';

export type { KModule } from './ksymtab';

export interface KSym {
  id: number;
  name: string;
  /** signed 64-bit address as a number */
  addr: number;
  /** nm type letter: T t W w D d B b R r A V */
  type: string;
  /** module name, '' for vmlinux */
  module: string;
}

/** Signed-number address from an unsigned 64-bit value (bigint or hex string with/without 0x). */
export function parseAddr(v: bigint | string): number {
  let b = typeof v === 'bigint' ? v : BigInt(v.startsWith('0x') || v.startsWith('0X') ? v : '0x' + v);
  b = BigInt.asIntN(64, b);
  return Number(b);
}

export function addrToBigInt(a: number): bigint {
  return BigInt.asUintN(64, BigInt(a));
}

/** 16 lower-case hex digits, no 0x (as %px / System.map print it). */
export function addrHex(a: number): string {
  return addrToBigInt(a).toString(16).padStart(16, '0');
}

let table: Symtab | null = null;

function load(): Symtab {
  if (table) return table;
  const t0 = process.hrtime.bigint();
  const r = openSymtab();
  table = r.table;
  noteParseTime(r.parsed ? 'kallsyms.gz' : 'ksymtab', Number(process.hrtime.bigint() - t0) / 1e6);
  return table;
}


let moduleLocs: Map<number, { file: string; line: number }> | null = null;
function moduleLocations(): Map<number, { file: string; line: number }> {
  if (!moduleLocs) moduleLocs = new Map(load().moduleLocs().map(([id, file, line]) => [id, { file, line }]));
  return moduleLocs;
}

/** Loaded modules in load order (lsmod lists them newest first). */
export function loadedModules(): readonly KModule[] {
  return (loadedList ??= load().moduleList().filter((m) => m.loaded));
}
let loadedList: KModule[] | null = null;

/** Every module the data knows: the loaded ones, then those installed but not loaded (NFS). */
export function knownModules(): readonly KModule[] {
  return load().moduleList();
}

/**
 * /proc/modules (m_show() of kernel/module/procfs.c): the loaded modules newest first, "name size
 * refcnt users, Live 0xbase" with "-" for no users.
 */
export function procModulesText(): string {
  let out = '';
  const mods = loadedModules();
  for (let i = mods.length - 1; i >= 0; i--) {
    const m = mods[i];
    const users = m.usedBy.length ? m.usedBy.map((u) => `${u},`).join('') : '-';
    out += `${m.name} ${m.size} ${m.refcnt} ${users} Live 0x${addrHex(m.base)}\n`;
  }
  return out;
}

/**
 * /proc/kallsyms as root reads it (s_show() of kernel/kallsyms.c: "%px %c %s", "\t[%s]" for
 * module symbols): vmlinux's symbols, then the loaded modules' (installed-only ones are not in
 * memory).
 */
export function procKallsymsText(): string {
  const t = load();
  const mods = t.moduleList();
  const parts: string[] = [];
  for (let id = 0; id < t.n; id++) {
    const k = t.mods[id];
    if (k >= 0 && !mods[k].loaded) continue;
    parts.push(`${addrHex(t.addrs[id])} ${t.type(id)} ${t.name(id)}${k >= 0 ? `\t[${mods[k].name}]` : ''}`);
  }
  return parts.join('\n') + '\n';
}

/** The directories of /sys/module (loaded modules and built-in ones with parameters), sorted. */
export function sysModuleNames(): readonly string[] {
  return knownSysModules() ?? load().sysModules();
}

/** Module name of a symbol ('' for vmlinux), as /proc/kallsyms shows it in brackets. */
export function symbolModule(id: number): string {
  const k = load().mods[id];
  return k >= 0 ? load().moduleList()[k].name : '';
}

/** The module whose core text contains addr (is_module_text_address()), or null. */
export function moduleTextOf(addr: number): KModule | null {
  for (const m of loadedModules()) if (addr >= m.base && addr < m.base + m.textSize) return m;
  return null;
}

/** dyn_ftrace sites of module text (absolute ips, ascending). */
export function moduleMcountSites(): readonly number[] {
  return load().moduleSites();
}

export function symbolCount(): number {
  return load().n;
}

export function symbol(id: number): KSym {
  const t = load();
  if (!(id >= 0 && id < t.n)) throw new RangeError(`no symbol with id ${id}`);
  return { id, name: t.name(id), addr: t.addrs[id], type: t.type(id), module: t.mods[id] >= 0 ? load().moduleList()[t.mods[id]].name : '' };
}

export function symbolName(id: number): string {
  // before the table is open, the names of the call paths' functions the build listed (a shell's
  // start names schedule's caller: it opens no symbol table for that)
  return (table === null ? knownSymbolName(id) : undefined) ?? load().name(id);
}

export function symbolAddr(id: number): number {
  return load().addrs[id];
}

/** Every symbol's address by id (the table itself: hot paths index it instead of calling symbolAddr). */
export function symbolAddrTable(): Float64Array {
  return load().addrs;
}

export function symbolType(id: number): string {
  return load().type(id);
}

/** All symbol ids with this exact name (static functions can repeat), in address order. */
export function lookupName(name: string): number[] {
  return load().lookup(name);
}

/** kallsyms_lookup_name(): address of the first symbol with this name, or null. */
export function kallsymsLookupName(name: string): number | null {
  const ids = lookupName(name);
  return ids.length ? load().addrs[ids[0]] : null;
}

/**
 * The symbol lookupAddr(kallsymsLookupName(name)) names (the first alias at that address), or
 * -1 when there is no such symbol or its address is outside the kernel image and the modules;
 * without the address search (aliases are neighbours in the table).
 */
export function firstAliasOf(name: string): number {
  const k = knownFirstAlias(name);
  return k !== undefined ? k : resolveFirstAlias(name);
}

/** firstAliasOf() worked out from the symbol table (not from the build's known-symbols table). */
export function resolveFirstAlias(name: string): number {
  const t = load();
  const ids = t.lookup(name);
  if (ids.length === 0) return -1;
  let id = ids[0];
  const addr = t.addrs[id];
  if (!(addr < textBounds().end) && moduleAt(addr) === null) return -1;
  while (id > 0 && t.addrs[id - 1] === addr) id--;
  return id;
}

export function isTextType(type: string): boolean {
  return type === 'T' || type === 't' || type === 'W' || type === 'w';
}

export function isFunction(id: number): boolean {
  return isTextCode(load().types[id]);
}

/** T t W w as character codes */
function isTextCode(c: number): boolean {
  return c === 84 || c === 116 || c === 87 || c === 119;
}

let bounds: { stext: number; etext: number; sinit: number; einit: number; initEnd: number; end: number } | null = null;
function textBounds() {
  if (bounds) return bounds;
  const a = (n: string) => {
    const v = kallsymsLookupName(n);
    if (v === null) throw new Error(`kallsyms: ${n} missing from data`);
    return v;
  };
  bounds = { stext: a('_stext'), etext: a('_etext'), sinit: a('_sinittext'), einit: a('_einittext'), initEnd: a('__init_end'), end: a('_end') };
  return bounds;
}

/**
 * kernel_text_address(): inside vmlinux .text (init text is freed after boot, so not text any
 * more) or inside a loaded module's core text.
 */
export function isKernelText(addr: number): boolean {
  const b = textBounds();
  return (addr >= b.stext && addr < b.etext) || (addr > b.end && moduleTextOf(addr) !== null);
}

/**
 * Whether addr is code in vmlinux's init memory, freed after boot (free_initmem): .init.text
 * (_sinittext.._einittext) and the .exit.text of built-in code, which the linker script places after
 * it, before __init_end (exit_zbud, exit_elf_binfmt ...: an exit function of built-in code never runs).
 * stap's dwarf_query::blacklisted_p skips every kernel function outside .text, so neither kind resolves.
 */
export function isFreedInitText(addr: number): boolean {
  const b = textBounds();
  return addr >= b.sinit && addr < b.initEnd;
}

export interface SymPos {
  /** first symbol (alias) at the containing address */
  id: number;
  /** start address of the symbol */
  addr: number;
  offset: number;
  /** distance to the next higher symbol address, as kallsyms computes sizes */
  size: number;
}

/**
 * kallsyms_lookup_size_offset(): the symbol containing addr, or null outside the kernel image and
 * the loaded modules. Inside a module's core (module_address_lookup() -> find_kallsyms_symbol()):
 * the closest preceding symbol of that module; the size runs to the next symbol of the module or
 * at most to the end of its core text.
 */
export function lookupAddr(addr: number): SymPos | null {
  const t = load();
  const b = textBounds();
  if (!(addr >= t.sortedAddrs[0] && addr < b.end)) {
    const mod = addr >= b.end ? moduleAt(addr) : null;
    return mod ? lookupInModule(t, mod, addr) : null;
  }
  const sa = t.sortedAddrs;
  let lo = 0, hi = sa.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sa[mid] <= addr) lo = mid; else hi = mid - 1;
  }
  if (sa[lo] > addr) return null;
  const start = sa[lo];
  let first = lo;
  while (first > 0 && sa[first - 1] === start) first--;
  let next = lo + 1;
  while (next < sa.length && sa[next] === start) next++;
  const size = next < sa.length ? sa[next] - start : 0;
  return { id: t.sortedId(first), addr: start, offset: addr - start, size };
}

/** The module whose core [base, base + size) holds addr (__module_address()), or null. */
export function moduleAt(addr: number): KModule | null {
  for (const m of loadedModules()) if (addr >= m.base && addr < m.base + m.size) return m;
  return null;
}

/** find_kallsyms_symbol(): a module's symbols are consecutive ids in address order. */
function lookupInModule(t: Symtab, mod: KModule, addr: number): SymPos | null {
  const a = t.addrs;
  let lo = mod.firstId, hi = mod.endId - 1;
  if (hi < lo || a[lo] > addr) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a[mid] <= addr) lo = mid; else hi = mid - 1;
  }
  const start = a[lo];
  let first = lo;
  while (first > mod.firstId && a[first - 1] === start) first--;
  let next = lo + 1;
  while (next < mod.endId && a[next] === start) next++;
  let nextval = mod.base + mod.textSize;
  if (next < mod.endId && a[next] < nextval) nextval = a[next];
  // past the core text the kernel's size is nextval - bestval as an unsigned long (wraps): 0 here
  return { id: first, addr: start, offset: addr - start, size: nextval > start ? nextval - start : 0 };
}

/** %pS style: "name+0xoff/0xsize", or the hex address when no symbol contains it. */
export function formatSymOffset(addr: number): string {
  const p = lookupAddr(addr);
  if (!p) return '0x' + addrHex(addr);
  return `${symbolName(p.id)}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}`;
}

/** %ps style: name only (name+0x.. when not at the start). */
export function formatSym(addr: number): string {
  const p = lookupAddr(addr);
  if (!p) return '0x' + addrHex(addr);
  return p.offset ? `${symbolName(p.id)}+0x${p.offset.toString(16)}` : symbolName(p.id);
}

// ---------------------------------------------------------------- glob matching

const globCache = new Map<string, RegExp>();

/** fnmatch(3)-style glob: *, ?, [set], [!set], backslash escapes. */
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (re) return re;
  let s = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') s += '.*';
    else if (c === '?') s += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) { s += '\\['; continue; }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      s += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else if (c === '\\' && i + 1 < glob.length) {
      s += glob[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else s += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  re = new RegExp(s + '$');
  globCache.set(glob, re);
  return re;
}

export function hasGlob(s: string): boolean {
  return /[*?[]/.test(s);
}

// ---------------------------------------------------------------- source locations

export interface SrcLoc {
  file: string;
  line: number;
}

/**
 * The vmlinux functions' locations (funcs.gz), by symbol id: file index + 1 (0 = none), line,
 * declared inline; `ids` the ids that have one, in file order.  (Typed arrays: a `*` wildcard
 * reads all 45 000 of them, and objects in a Map cost most of that in allocation and GC.)
 */
interface LocTable {
  file: Uint16Array;
  line: Int32Array;
  inline: Uint8Array;
  files: string[];
  ids: number[];
}
let locs: LocTable | null = null;

function loadLocs(): LocTable {
  if (locs) return locs;
  const text = funcsText ?? readDataText('funcs.gz');
  funcsText = null;
  const t0 = Date.now();
  const n = symbolCount();
  const t: LocTable = { file: new Uint16Array(n), line: new Int32Array(n), inline: new Uint8Array(n), files: [], ids: [] };
  const fileIdx = new Map<string, number>();
  // lines `id TAB file TAB line TAB flags`
  for (let at = 0; at < text.length;) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    const t1 = text.indexOf('\t', at);
    const t2 = t1 < 0 || t1 > nl ? -1 : text.indexOf('\t', t1 + 1);
    if (t2 > t1 + 1 && t2 < nl) {
      const id = Number(text.slice(at, t1));
      let t3 = text.indexOf('\t', t2 + 1);
      if (t3 < 0 || t3 > nl) t3 = nl;
      const file = text.slice(t1 + 1, t2);
      let fi = fileIdx.get(file);
      if (fi === undefined) {
        fi = t.files.push(file);
        fileIdx.set(file, fi);
      }
      if (id >= 0 && id < n) {
        if (t.file[id] === 0) t.ids.push(id);
        t.file[id] = fi;
        t.line[id] = Number(text.slice(t2 + 1, t3));
        t.inline[id] = t3 < nl && text.charCodeAt(t3 + 1) === 105 /* i */ ? 1 : 0;
      }
    }
    at = nl + 1;
  }
  if (t.files.length >= 0xffff) throw new Error('funcs.gz: more source files than the table holds');
  noteParseTime('funcs.gz', Date.now() - t0);
  return (locs = t);
}

/** Source location (DWARF decl_file:decl_line) of a function symbol, or null (asm, no debug info). */
export function functionLocation(id: number): SrcLoc | null {
  if (!locs && id < symbolCount() && load().mods[id] < 0 && fewLookups < 64) {
    // the first few lookups search the text (a run resolving a handful of functions does not
    // parse all 40 000 locations; wildcards soon switch to the parsed table)
    fewLookups++;
    return searchLoc(id);
  }
  const t = loadLocs();
  if (id >= 0 && id < t.file.length && t.file[id] !== 0) return { file: t.files[t.file[id] - 1], line: t.line[id] };
  const l = id < symbolCount() && load().mods[id] >= 0 ? moduleLocations().get(id) : undefined;
  return l ? { file: l.file, line: l.line } : null;
}

let fewLookups = 0;
let funcsText: string | null = null;
function searchLoc(id: number): SrcLoc | null {
  if (funcsText === null) funcsText = readDataText('funcs.gz');
  const key = `${id}\t`;
  const at = funcsText.startsWith(key) ? 0 : funcsText.indexOf('\n' + key) + 1;
  if (at <= 0 && !funcsText.startsWith(key)) return null;
  const end = funcsText.indexOf('\n', at);
  const [, file, ln] = funcsText.slice(at, end < 0 ? undefined : end).split('\t');
  return file ? { file, line: Number(ln) } : null;
}

/** True when this out-of-line body belongs to a function declared `inline` in the source. */
export function isDeclaredInline(id: number): boolean {
  const t = loadLocs();
  return id >= 0 && id < t.inline.length && t.inline[id] === 1;
}

export interface InlineFunc {
  name: string;
  file: string;
  line: number;
}
let inlines: InlineFunc[] | null = null;

/** Abstract inline function definitions from DWARF (DW_AT_inline), sorted by name. */
export function inlineFunctions(): readonly InlineFunc[] {
  if (inlines) return inlines;
  const text = readDataText('inlines.gz');
  inlines = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [name, file, ln] = line.split('\t');
    inlines.push({ name, file, line: Number(ln) });
  }
  return inlines;
}

/** Functions (by name) that exist only inlined: no symbol of that name in kallsyms. */
let inlineNames: Set<string> | null = null;
export function isInlineOnly(name: string): boolean {
  if (lookupName(name).some(isFunction)) return false;
  if (!inlineNames) {
    // the names only (the first field of each line), without making every InlineFunc
    inlineNames = new Set();
    if (inlines) for (const f of inlines) inlineNames.add(f.name);
    else {
      const text = readDataText('inlines.gz');
      for (let at = 0; at < text.length;) {
        const nl = text.indexOf('\n', at);
        const end = nl < 0 ? text.length : nl;
        const tab = text.indexOf('\t', at);
        if (tab > at && tab < end) inlineNames.add(text.slice(at, tab));
        at = end + 1;
      }
    }
  }
  return inlineNames.has(name);
}

// ---------------------------------------------------------------- function pattern resolution

export interface FuncPattern {
  func: string;
  file?: string;
  line?: number;
}

/** Split a stap-style function spec "name[@file[:line]]". */
export function parseFuncPattern(spec: string): FuncPattern {
  const at = spec.indexOf('@');
  if (at < 0) return { func: spec };
  const func = spec.slice(0, at);
  let file = spec.slice(at + 1);
  let line: number | undefined;
  const m = /^(.*):(\d+)$/.exec(file);
  if (m) { file = m[1]; line = Number(m[2]); }
  return { func, file, line };
}

export function fileMatches(fileGlob: string, path: string): boolean {
  const re = globToRegExp(fileGlob);
  if (re.test(path)) return true;
  // suffix match on path components: "read_write.c" or "fs/read_write.c" or "*/read_write.c"
  let i = path.indexOf('/');
  while (i >= 0) {
    if (re.test(path.slice(i + 1))) return true;
    i = path.indexOf('/', i + 1);
  }
  return false;
}

/**
 * Which symbols a pattern searches: 'kernel' = vmlinux only (kernel.function, kprobe.function),
 * a module name or a glob of module names (module("M").function), undefined = every symbol.
 */
export type SymbolScope = string | undefined;

/** Is symbol `id` in scope (see SymbolScope)? */
export function inScope(id: number, scope: SymbolScope): boolean {
  if (scope === undefined) return true;
  const k = load().mods[id];
  if (scope === 'kernel') return k < 0;
  if (k < 0) return false;
  const name = load().moduleList()[k].name;
  return hasGlob(scope) ? globToRegExp(scope).test(name) : name === scope;
}

/**
 * Modules whose name matches a module("M") argument (a name or a glob), load order: loaded or
 * only installed, as stap resolves module probes from the debuginfo either way.
 */
export function modulesMatching(scope: string): KModule[] {
  const re = hasGlob(scope) ? globToRegExp(scope) : null;
  return knownModules().filter((m) => (re ? re.test(m.name) : m.name === scope));
}

/**
 * Resolve "name-glob[@file-glob[:line]]" to function symbol ids (text symbols), address order.
 * A file part matches the whole source path or any trailing run of path components.
 */
export function matchFunctions(spec: string, scope?: SymbolScope): number[] {
  const p = parseFuncPattern(spec);
  const t = load();
  let ids: number[];
  if (!hasGlob(p.func)) {
    ids = lookupName(p.func).filter(isFunction);
    // (the clone index needs every function's DWARF location: built only when a clone can exist)
    const cl = mayHaveClones(p.func) ? clones().get(p.func) : undefined;
    if (cl) ids = [...ids, ...cl].sort((a, b) => a - b);
  } else {
    const re = globToRegExp(p.func);
    const names = t.allNames();
    ids = [];
    // a module scope searches only its modules' consecutive ids
    const ranges: [number, number][] = scope === undefined ? [[0, t.n]]
      : scope === 'kernel' ? [[0, vmlinuxCount(t)]]
      : modulesMatching(scope).map((m) => [m.firstId, m.endId]);
    for (const [a, b] of ranges) for (let i = a; i < b; i++) if (isTextCode(t.types[i]) && re.test(names[i])) ids.push(i);
    // a compiler clone (foo.isra.0) is the DWARF function foo
    for (const [base, cl] of clones()) if (re.test(base)) ids.push(...cl);
    ids = [...new Set(ids)].sort((a, b) => a - b);
  }
  if (scope !== undefined) ids = ids.filter((id) => inScope(id, scope));
  if (p.file !== undefined) {
    const fg = p.file;
    ids = ids.filter((id) => {
      const l = functionLocation(id);
      return l !== null && fileMatches(fg, l.file) && (p.line === undefined || l.line === p.line);
    });
  }
  return ids;
}

let cloneBases: Set<number> | null = null;
/**
 * May `name` be the part before the first dot of some text symbol (foo of foo.isra.0)?  True for
 * every key of clones(), from the names' bytes alone: the hashes (nameHashOf) of those parts, so
 * no name is decoded; a hash collision only sends a name to clones(), which is exact.
 */
function mayHaveClones(name: string): boolean {
  if (!cloneBases) {
    const t = load();
    const ids = t.dottedIds();
    const hashes = t.dottedPrefixHashes();
    cloneBases = new Set();
    for (let i = 0; i < ids.length; i++) if (isTextCode(t.types[ids[i]])) cloneBases.add(hashes[i]);
  }
  return cloneBases.has(nameHashOf(name));
}

let cloneIndex: Map<string, number[]> | null = null;
/**
 * Compiler clones with a DWARF body (foo.isra.0, foo.constprop.0, foo.part.0: GCC emits a concrete
 * subprogram for them whose name is foo's), by DWARF name. `.cold` parts have no DWARF entry.
 */
function clones(): Map<string, number[]> {
  if (cloneIndex) return cloneIndex;
  cloneIndex = new Map();
  const t = load();
  const add = (id: number) => {
    const n = t.name(id);
    const dot = n.indexOf('.');
    if (dot <= 0 || !isTextCode(t.types[id])) return;
    const base = n.slice(0, dot);
    let l = cloneIndex!.get(base);
    if (!l) cloneIndex!.set(base, (l = []));
    l.push(id);
  };
  for (const id of loadLocs().ids) add(id);
  for (const [id] of t.moduleLocs()) add(id);
  return cloneIndex;
}

/**
 * The name DWARF gives a function symbol: foo for a compiler clone foo.isra.0 that has its own
 * DWARF body (what stap's probe points name), else the symbol name.
 */
export function dwarfName(id: number): string {
  return dwarfNameOf(symbolName(id), functionLocation(id));
}

/** dwarfName() of a symbol whose name and functionLocation() the caller has already. */
export function dwarfNameOf(name: string, loc: SrcLoc | null): string {
  const dot = name.indexOf('.');
  return dot > 0 && loc !== null ? name.slice(0, dot) : name;
}

/** Number of vmlinux symbols (module symbols have the ids after them). */
function vmlinuxCount(t: Symtab): number {
  const mods = t.moduleList();
  return mods.length ? Math.min(...mods.map((m) => m.firstId)) : t.n;
}

/** Symbols of any type whose name matches a glob. */
export function matchSymbols(glob: string): number[] {
  const t = load();
  const re = globToRegExp(glob);
  const names = t.allNames();
  const out: number[] = [];
  for (let i = 0; i < t.n; i++) if (re.test(names[i])) out.push(i);
  return out;
}

// ---------------------------------------------------------------- kprobe blacklist

export interface BlacklistEntry {
  start: number;
  end: number;
  name: string;
}
let blacklist: BlacklistEntry[] | null = null;

/**
 * The kprobe blacklist as populate_kprobe_blacklist() builds it at boot (same order as
 * /sys/kernel/debug/kprobes/blacklist): NOKPROBE_SYMBOL() entries, then __kprobes text,
 * noinstr text and the x86 entry text, each as [start, end) of one symbol.
 */
export function kprobeBlacklist(): readonly BlacklistEntry[] {
  if (blacklist) return blacklist;
  const text = readDataText('kprobe_blacklist.txt');
  blacklist = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [s, e, n] = line.split(' ');
    blacklist.push({ start: parseAddr(s), end: parseAddr(e), name: n });
  }
  return blacklist;
}

/** The blacklist's ranges by start address, with the running maximum of their ends (they may overlap). */
let blStarts: Float64Array | null = null;
let blMaxEnds: Float64Array | null = null;
function inBlacklist(addr: number): boolean {
  if (!blStarts || !blMaxEnds) {
    const es = [...kprobeBlacklist()].sort((a, b) => a.start - b.start);
    blStarts = Float64Array.from(es, (e) => e.start);
    blMaxEnds = new Float64Array(es.length);
    let m = -Infinity;
    es.forEach((e, i) => { m = Math.max(m, e.end); blMaxEnds![i] = m; });
  }
  // the last range starting at or below addr: some range up to it ends above addr?
  let lo = 0, hi = blStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blStarts[mid] <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && blMaxEnds[lo - 1] > addr;
}

/** within_kprobe_blacklist(), including the ".suffix" rule for foo.isra.0 / foo.cold. */
export function withinKprobeBlacklist(addr: number): boolean {
  if (inBlacklist(addr)) return true;
  const p = lookupAddr(addr);
  if (!p) return false;
  const name = symbolName(p.id);
  const dot = name.indexOf('.');
  if (dot < 0) return false;
  const base = kallsymsLookupName(name.slice(0, dot));
  return base !== null && inBlacklist(base);
}
