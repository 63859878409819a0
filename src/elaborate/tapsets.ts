/**
 * The tapset library: `.stp` files under stdlib/ and -I directories, loaded only when a script
 * needs them.  An index (function, global and probe-alias names -> file) and every file's parsed
 * AST are kept in a content-checked cache (keyed by path, mtime, size and parser build), so
 * startup does not grow with the size of the library: a warm start reads one index file and
 * stats each tapset; only the files a script uses are deserialised.  Session options (-g,
 * --compatible, --privilege) and script arguments enter a file's key only when its parse
 * consulted them (a `%( systemtap_v ... %)` condition, a pasted `$1`): a run with new options
 * re-parses those few files and shares every other entry with the default run.
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as A from '../ast';
import { Diagnostics, PassFailed } from '../diag';
import { ARCH } from '../kernel/config';
import { cacheDir, writeAtomic, writeSealed, readSealed, digestHex, crc32, pruneKind, namedKind, EntryKind } from '../cachedir';
import type { SessionOption } from '../parse/preprocess';
import { parserFiles } from '../parse/files';
import { AstWriter, reviver, encodeTapsetAst, decodeTapsetAst, isFailedParse, inMemory, EncodedAst, DamagedEntry } from './tapset_ast';
import type { AliasTable } from './alias_table';

export interface LibraryParseOptions {
  args: string[];
  guru: boolean;
  compatible?: string;
  privilege?: string;
}

export interface LibraryOptions {
  /** Tapset directories, in search order (stdlib first, then -I dirs as given). */
  dirs: string[];
  parse: LibraryParseOptions;
  diag: Diagnostics;
  /** Cache directory; null disables caching; default: the checked user cache (src/cachedir.ts). */
  cacheDir?: string | null;
  /** Receives the one-line warning when the user's cache directory is refused. */
  warn?: (line: string) => void;
  /**
   * A read-only cache made by the build (dist/tapset-cache, see builtCacheDir), consulted after
   * cacheDir: a first run with an empty or unwritable cache directory does not parse the library.
   */
  builtCacheDir?: string | null;
}

/** The tapset cache `npm run build` fills (scripts/warm-tapsets.ts): dist/tapset-cache. */
export function builtCacheDir(): string {
  return path.join(__dirname, '..', '..', 'tapset-cache');
}

interface FileIndex {
  functions: string[];
  globals: string[];
  /** The first components of the file's probe alias names (`syscall` of `syscall.read`). */
  roots: string[];
  failed?: boolean;
}

interface IndexEntry {
  stamp: string;
  index: FileIndex;
  usesArgs?: boolean;
  /** Session options the file's conditions consulted (its stamp carries their values). */
  usesOptions?: SessionOption[];
}

interface IndexFile {
  version: string;
  /** Options-independent key (parser build, macro files): entries are shared across indexes with the same base. */
  base: string;
  key: string;
  files: Record<string, IndexEntry>;
}

const CACHE_VERSION = 'tapsim-tapset-cache-13';

/** The session options of a library parse, as the preprocessor sees them. */
function optionValues(p: LibraryParseOptions): Record<SessionOption, string> {
  return { guru: p.guru ? '1' : '0', compatible: p.compatible ?? '', privilege: p.privilege ?? 'stapdev' };
}

const DEFAULT_OPTIONS: LibraryParseOptions = { args: [], guru: false };

type ParseModule = typeof import('../parse/index');

let parseModule: ParseModule | undefined;
function parser(): ParseModule {
  if (!parseModule) parseModule = require('../parse/index') as ParseModule;
  return parseModule;
}

/**
 * Identifies the parser build by content, so a rebuild that changes nothing keeps the cache
 * while a changed grammar or parser invalidates cached ASTs.  The content digest is memoised in
 * the cache directory under the files' sizes and times, so a start normally costs five stats.
 */
function parserStamp(cacheDirs: string[]): string {
  const files = parserFiles();
  const times = files.map((f) => stampOf(f) ?? '-').join(',');
  for (const dir of cacheDirs) {
    try {
      const m = JSON.parse(readSealed(path.join(dir, 'parser-stamp.json'))?.toString('utf8') ?? 'null') as { times: string; digest: string } | null;
      if (m && m.times === times && typeof m.digest === 'string') return m.digest;
    } catch {
      // no memo there
    }
  }
  const digest = digestHex(files.map((f) => {
    try {
      return fs.readFileSync(f, 'latin1');
    } catch {
      return '-';
    }
  }).join('\0'));
  if (cacheDirs.length) writeSealed(path.join(cacheDirs[0], 'parser-stamp.json'), JSON.stringify({ times, digest }));
  return digest;
}

function stampOf(p: string): string | null {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    return st ? statStamp(st) : null;
  } catch {
    return null;
  }
}

/** A file's cache stamp: its modification time and size. */
function statStamp(st: fs.Stats): string {
  return `${st.mtimeMs}:${st.size}`;
}

/** A tapset SourceFile whose text is read on first use. */
function lazySourceFile(name: string): A.SourceFile {
  let text: string | undefined;
  const sf = { name, isTapset: true } as A.SourceFile;
  Object.defineProperty(sf, 'text', {
    enumerable: true,
    get() {
      if (text === undefined) {
        try {
          text = fs.readFileSync(name, 'latin1');
        } catch {
          text = '';
        }
      }
      return text;
    },
    set(v: string) {
      text = v;
    },
  });
  return sf;
}

// ---------------------------------------------------------------------------------------------
// AST (de)serialisation: SourceFiles become table references, bigints tagged.

/**
 * AST <-> text for the user-script cache.  Format: a JSON array of the source files referenced,
 * a newline, then the AST as JSON in which a token's `file` is "\0<index>" (other source-file
 * references are {"$sf": index}, bigints {"$big": "digits"}).  Reading it is one plain
 * JSON.parse and one walk (a JSON.parse reviver is several times slower on large ASTs).
 * Tapset files use the per-declaration form of tapset_ast.ts instead.
 */
export function serialize(value: unknown): string {
  const w = new AstWriter();
  const json = w.stringify(value);
  return w.fileTable() + '\n' + json;
}

export function deserialize<T>(text: string, fileFor: (name: string, isTapset: boolean) => A.SourceFile): T {
  const nl = text.indexOf('\n');
  const files = (JSON.parse(text.slice(0, nl)) as { name: string; isTapset: boolean }[]).map((f) => fileFor(f.name, f.isTapset));
  return reviver(files)(JSON.parse(text.slice(nl + 1))) as T;
}

// ---------------------------------------------------------------------------------------------

/** Largest user script whose AST is cached (the parser does 2+ MB/s; JSON.parse of the AST less). */
const USER_CACHE_MAX_SOURCE = 64 * 1024;

/*
 * Pruning (cachedir.ts pruneKind, only after writing an entry, never on a start that found its
 * own): an index or macro file per set of directories and options, the newest 8 others kept
 * (other checkouts, -g, -I sets); syntax trees grouped by the library key they were made with
 * (their name's first 8 digits: a new parser or macro file makes a new group), the newest 3
 * other groups kept; parsed user scripts, the newest 1000 kept once there are more than 2000.
 */
const INDEX_KIND = namedKind('index-', '.json', 8);
const MACROS_KIND = namedKind('macros-', '.json', 8);
const AST_KIND: EntryKind = {
  group: (n) => /^([0-9a-f]{8})-[0-9a-f]{24}\.json$/.exec(n)?.[1] ?? (/^[0-9a-f]{24}\.json$/.test(n) ? '(unkeyed)' : null),
  keep: 3,
};
const USER_KIND = namedKind('', '.json', 1000, 2000);

export class TapsetLibrary {
  private files: string[] = [];
  /** Each `.stp` file's stamp (stampOf) when the library was scanned. */
  private fileStamps: Map<string, string>;
  private macroFiles: string[] = [];
  private index = new Map<string, FileIndex>();
  private fnMap = new Map<string, string[]>();
  private globalMap = new Map<string, string[]>();
  private rootMap = new Map<string, string[]>();
  private cacheDir: string | null;
  /** Where cached entries are looked for, in order: cacheDir (written), then the build's cache. */
  private readDirs: string[];
  /** Key of everything but the session options: parser build, macro files. */
  private baseKey: string;
  /** baseKey plus the session options (index, macro and user-script entries). */
  private optsKey: string;
  private argsSuffix: string;
  /** Files whose text pastes command-line arguments ($1, @1, $#). */
  private argFiles = new Set<string>();
  /** Files whose conditions consulted session options, and which. */
  private optionFiles = new Map<string, SessionOption[]>();
  private sourceFiles = new Map<string, A.SourceFile>();
  private macroCache?: Map<string, unknown>;
  /** Encoded AST of each file loaded or parsed so far. */
  private astData = new Map<string, EncodedAst>();
  /** Cache stamp of each indexed file (what its AST file's header must say). */
  private stamps = new Map<string, string>();
  /** Parsed (and not yet cached) files of this run. */
  private fresh = new Map<string, A.StapFile | null>();

  constructor(private opts: LibraryOptions) {
    this.cacheDir = opts.cacheDir === undefined ? cacheDir(opts.warn) : opts.cacheDir;
    const built = opts.builtCacheDir === undefined ? builtCacheDir() : opts.builtCacheDir;
    this.readDirs = this.cacheDir === null ? [] : [this.cacheDir];
    // (the build's cache sits with the code, as trusted as it: read even without a user cache)
    if (built && (this.cacheDir === null || path.resolve(built) !== path.resolve(this.cacheDir))) this.readDirs.push(built);
    const scan = scanDirs(opts.dirs);
    this.fileStamps = scan.stp;
    this.files = [...scan.stp.keys()];
    this.macroFiles = [...scan.stpm.keys()];
    const p = opts.parse;
    const macroStamps = [...scan.stpm].map(([f, st]) => `${f}=${st}`).join(';');
    this.baseKey = digestHex([CACHE_VERSION, parserStamp(this.readDirs), macroStamps].join('|'));
    this.optsKey = this.keyFor(p);
    // Script arguments only matter to the (rare) tapset files that paste $N/@N: theirs is the
    // only cache entry keyed on them, so new arguments never re-parse the whole library.
    this.argsSuffix = '|args:' + digestHex(p.args.join('\0')).slice(0, 16);
    this.buildIndex();
  }

  get dirs(): string[] {
    return this.opts.dirs;
  }

  /** The library key (parser build, macro files): what a file's parse, and so its alias order, depends on. */
  get key(): string {
    return this.baseKey;
  }

  private aliasTable: AliasTable | null | undefined;

  /**
   * The build's table of stdlib aliases that resolve to nothing (alias_table.ts), when it holds
   * for this library (the stdlib directory it was made for first); null otherwise.
   */
  builtAliasTable(): AliasTable | null {
    if (this.aliasTable !== undefined) return this.aliasTable;
    const stdlib = this.opts.dirs[0];
    const table = (): typeof import('./alias_table') => require('./alias_table') as typeof import('./alias_table');
    this.aliasTable = stdlib && path.resolve(stdlib) === path.resolve(stdlibDir()) ? table().AliasTable.load(this.baseKey, stdlib) : null;
    return this.aliasTable;
  }

  /**
   * Is this library file parsed as the build parsed the stdlib (no script argument pasted, the
   * session options its conditions consulted at their defaults), so its declarations are those
   * the build's alias tables describe?
   */
  parsedAsBuilt(f: string): boolean {
    if (this.argFiles.has(f) && this.opts.parse.args.length) return false;
    const now = optionValues(this.opts.parse);
    const built = optionValues(DEFAULT_OPTIONS);
    return (this.optionFiles.get(f) ?? []).every((o) => now[o] === built[o]);
  }

  /** Is a library file the stdlib directory's (not an -I directory's)? */
  isStdlibFile(file: string): boolean {
    const stdlib = this.opts.dirs[0];
    return !!stdlib && path.resolve(file).startsWith(path.resolve(stdlib) + path.sep);
  }

  /** The stamp (mtime:size) of a library file when the library was scanned. */
  fileStamp(f: string): string | undefined {
    return this.fileStamps.get(f);
  }

  allFiles(): string[] {
    return [...this.files];
  }

  private sourceFile(name: string): A.SourceFile {
    let sf = this.sourceFiles.get(name);
    if (!sf) this.sourceFiles.set(name, (sf = lazySourceFile(name)));
    return sf;
  }

  /** The key of a set of session options (an index's `key`). */
  private keyFor(p: LibraryParseOptions): string {
    const v = optionValues(p);
    return digestHex([this.baseKey, v.guru, v.compatible, v.privilege].join('|'));
  }

  /** The part of a file's stamp that carries the values of the session options it consulted. */
  private optionsSuffix(used: readonly SessionOption[]): string {
    if (!used.length) return '';
    const v = optionValues(this.opts.parse);
    return '|opts:' + digestHex(used.map((o) => `${o}=${v[o]}`).join('\0')).slice(0, 16);
  }

  /**
   * Index file name in a cache directory (`dir` null: none), for a set of directories and
   * options: guru (-g) and plain runs keep their own index and do not evict each other's.
   */
  private indexPath(dir: string | null, dirs = this.opts.dirs, key = this.optsKey): string | null {
    if (!dir) return null;
    const dirsKey = digestHex(dirs.map((d) => path.resolve(d)).join('\0') + '\0' + key).slice(0, 16);
    return path.join(dir, `index-${dirsKey}.json`);
  }

  /**
   * AST file name of a tapset in a cache directory (`dir` null: none): shared by every set of
   * options unless the file's conditions consulted some, then one per value of those.
   */
  private astPath(dir: string | null, file: string): string | null {
    if (!dir) return null;
    const h = digestHex(file + '\0' + this.baseKey + this.optionsSuffix(this.optionFiles.get(file) ?? [])).slice(0, 24);
    return path.join(dir, 'ast', `${this.baseKey.slice(0, 8)}-${h}.json`);
  }

  private readIndex(dirs: string[], key: string): IndexFile | null {
    for (const dir of this.readDirs) {
      try {
        const idx = JSON.parse(readSealed(this.indexPath(dir, dirs, key)!)?.toString('utf8') ?? 'null') as IndexFile | null;
        if (idx && idx.version === CACHE_VERSION && idx.base === this.baseKey && validIndex(idx)) return idx;
      } catch {
        // none there
      }
    }
    return null;
  }

  private buildIndex(): void {
    const ip = this.indexPath(this.cacheDir);
    const cached = this.readIndex(this.opts.dirs, this.optsKey);
    // A file's entry depends neither on the other directories nor, unless its conditions
    // consulted them, on the session options: with no index for these directories and options
    // yet, entries come from the default options' index and the stdlib-only ones (no reparse;
    // each entry's stamp is checked against this run's values below).
    const fallbacks: IndexFile[] = [];
    if (!cached) {
      const defaultKey = this.keyFor(DEFAULT_OPTIONS);
      const stdlib = this.opts.dirs.slice(0, 1);
      const tries: [string[], string][] = [[this.opts.dirs, defaultKey]];
      if (this.opts.dirs.length > 1) tries.push([stdlib, this.optsKey], [stdlib, defaultKey]);
      for (const [dirs, key] of tries) {
        if (key === this.optsKey && dirs === this.opts.dirs) continue;
        const idx = this.readIndex(dirs, key);
        if (idx) fallbacks.push(idx);
      }
    }
    const out: IndexFile = { version: CACHE_VERSION, base: this.baseKey, key: this.optsKey, files: {} };
    let dirty = !cached;
    for (const f of this.files) {
      const base = this.fileStamps.get(f) ?? '';
      const expected = (e: IndexEntry): string => base + (e.usesArgs ? this.argsSuffix : '') + this.optionsSuffix(e.usesOptions ?? []);
      let hit = cached?.files[f];
      if (hit && hit.stamp !== expected(hit)) hit = undefined;
      for (const fb of fallbacks) {
        if (hit) break;
        const e = fb.files[f];
        if (e && e.stamp === expected(e)) hit = e;
      }
      let stamp: string;
      let idx: FileIndex;
      // (the AST file itself is checked against stamp and key when it is loaded)
      if (hit) {
        idx = hit.index;
        // (an index of cache format 11 also listed every alias name: rewritten without them)
        if ('aliases' in idx) {
          idx = { functions: idx.functions, globals: idx.globals, roots: idx.roots, failed: idx.failed };
          dirty = true;
        }
        stamp = hit.stamp;
        if (hit.usesArgs) this.argFiles.add(f);
        if (hit.usesOptions?.length) this.optionFiles.set(f, hit.usesOptions);
      } else {
        dirty = true;
        idx = this.parseAndCache(f, base);
        stamp = this.fullStamp(f, base);
      }
      out.files[f] = { stamp, index: idx, usesArgs: this.argFiles.has(f) || undefined, usesOptions: this.optionFiles.get(f) };
      this.stamps.set(f, stamp);
      this.addIndex(f, idx);
    }
    if (cached && Object.keys(cached.files).length !== this.files.length) dirty = true;
    if (dirty && ip) {
      writeSealed(ip, JSON.stringify(out));
      pruneKind(path.dirname(ip), INDEX_KIND, path.basename(ip));
    }
  }

  private addIndex(f: string, idx: FileIndex): void {
    this.index.set(f, idx);
    const add = (m: Map<string, string[]>, k: string): void => {
      const l = m.get(k);
      if (!l) m.set(k, [f]);
      else if (!l.includes(f)) l.push(f);
    };
    for (const n of idx.functions) add(this.fnMap, n);
    for (const n of idx.globals) add(this.globalMap, n);
    for (const n of idx.roots) add(this.rootMap, n);
  }

  private parseOpts(usedOptions?: Set<SessionOption>): import('../parse/index').ParseOptions {
    const p = this.opts.parse;
    return { args: p.args, guru: p.guru, compatible: p.compatible, privilege: p.privilege, libraryMacros: this.macros() as never, usedOptions };
  }

  private fullStamp(f: string, base: string): string {
    return base + (this.argFiles.has(f) ? this.argsSuffix : '') + this.optionsSuffix(this.optionFiles.get(f) ?? []);
  }

  private parseAndCache(f: string, base: string): FileIndex {
    if (/[$@](\d|#)/.test(this.sourceFile(f).text)) this.argFiles.add(f);
    const silent = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {});
    let ast: A.StapFile | null = null;
    const used = new Set<SessionOption>();
    try {
      ast = parser().parseFile(this.sourceFile(f), this.parseOpts(used), silent);
    } catch {
      ast = null;
    }
    if (used.size) this.optionFiles.set(f, [...used].sort());
    else this.optionFiles.delete(f);
    const stamp = this.fullStamp(f, base);
    const idx: FileIndex = ast ? indexOf(ast) : { functions: [], globals: [], roots: [], failed: true };
    const ap = this.astPath(this.cacheDir, f);
    const data = Buffer.from(encodeTapsetAst(ast), 'utf8');
    if (ap) {
      writeAtomic(ap, Buffer.concat([Buffer.from(JSON.stringify({ stamp, key: this.baseKey, head: headCrc(data, 0) }) + '\n'), data]));
      pruneKind(path.dirname(ap), AST_KIND, this.baseKey.slice(0, 8));
    }
    this.astData.set(f, inMemory(data));
    return idx;
  }

  /**
   * Library macros from the `.stpm` files (for parsing user scripts and tapsets), read back from
   * the cache when the macro files, parser, options and arguments are those it was made with
   * (the key), so a run whose script is cached too does not load the parser at all.
   */
  macros(): Map<string, unknown> {
    if (this.macroCache) return this.macroCache;
    const name = `macros-${digestHex(this.optsKey + '\0' + this.opts.parse.args.join('\0')).slice(0, 24)}.json`;
    for (const dir of this.readDirs) {
      try {
        const text = readSealed(path.join(dir, name));
        if (!text) continue;
        const entries = deserialize<[string, unknown][]>(text.toString('utf8'), (n) => this.sourceFile(n));
        if (Array.isArray(entries)) return (this.macroCache = new Map(entries));
      } catch {
        // not cached there
      }
    }
    const all = this.parseMacros();
    if (this.cacheDir) {
      writeSealed(path.join(this.cacheDir, name), serialize([...all]));
      pruneKind(this.cacheDir, MACROS_KIND, name);
    }
    return all;
  }

  /** macros() as a Map read on first use: a run whose script comes from the cache needs none. */
  lazyMacros(): Map<string, unknown> {
    return new LazyMap(() => this.macros());
  }

  private parseMacros(): Map<string, unknown> {
    const all = new Map<string, unknown>();
    this.macroCache = all;
    for (const f of this.macroFiles) {
      const silent = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {});
      try {
        const m = parser().parseMacroFile(this.sourceFile(f), { args: this.opts.parse.args, guru: this.opts.parse.guru }, silent);
        if (m) for (const [k, v] of m) if (!all.has(k)) all.set(k, v);
      } catch {
        // ignore broken macro files
      }
    }
    return all;
  }

  filesDefiningFunction(name: string): string[] {
    return this.fnMap.get(name) ?? [];
  }

  filesDefiningGlobal(name: string): string[] {
    return this.globalMap.get(name) ?? [];
  }

  filesDefiningAliasRoot(root: string, glob?: (pat: string, s: string) => boolean): string[] {
    if (!glob) return this.rootMap.get(root) ?? [];
    const out: string[] = [];
    for (const [r, fs_] of this.rootMap) if (glob(root, r)) for (const f of fs_) if (!out.includes(f)) out.push(f);
    return out;
  }

  functionNames(): string[] {
    return [...this.fnMap.keys()];
  }

  aliasRoots(): string[] {
    return [...this.rootMap.keys()];
  }

  /**
   * Parse a user script through the same AST cache as the tapsets: a script parsed before with
   * the same name, text, arguments, options and library (macros, parser build) is read back
   * instead of parsed again.  Only silent parses are stored, so no message is ever lost.
   */
  parseUserFile(src: A.SourceFile, opts: import('../parse/index').ParseOptions, diag: Diagnostics): A.StapFile | null {
    // a big script parses faster than its cached AST (~35 bytes of JSON per source byte) reads back
    const dir = src.text.length <= USER_CACHE_MAX_SOURCE ? this.cacheDir : null;
    const file = dir ? path.join(dir, 'user', `${digestHex([this.optsKey, src.name, opts.args.join('\0'), opts.runtime ?? '', src.text].join('\0'))}.json`) : null;
    if (file) {
      try {
        const all = readSealed(file)?.toString('utf8'); // (stored as UTF-8)
        if (all === undefined) throw new Error('no entry');
        const nl = all.indexOf('\n');
        const head = JSON.parse(all.slice(0, nl)) as { usedArgs: number[] };
        const ast = deserialize<A.StapFile>(all.slice(nl + 1), (name, isTapset) => (!isTapset && name === src.name ? src : this.sourceFile(name)));
        if (!Array.isArray(head.usedArgs) || !head.usedArgs.every((n) => Number.isInteger(n)) || !isStapFile(ast)) throw new Error('malformed entry');
        for (const n of head.usedArgs) opts.usedArgs?.add(n);
        return ast;
      } catch {
        // not cached (or unreadable): parse
      }
    }
    const before = diag.activity;
    const used = new Set<number>();
    const ast = parser().parseFile(src, { ...opts, usedArgs: used }, diag);
    for (const n of used) opts.usedArgs?.add(n);
    if (ast && file && diag.activity === before) {
      writeSealed(file, JSON.stringify({ usedArgs: [...used] }) + '\n' + serialize(ast));
      pruneKind(path.dirname(file), USER_KIND, path.basename(file));
    }
    return ast;
  }

  /** The encoded AST of a tapset parsed now, for a cache entry replaced while in use. */
  private parseAgain(f: string): EncodedAst {
    const stamp = this.stamps.get(f);
    this.parseAndCache(f, stampOf(f) ?? '');
    if (this.fullStamp(f, stampOf(f) ?? '') !== stamp) {
      // a user-visible condition, not an internal fault: stap's layout, pass 2 fails
      this.opts.diag.plain(`ERROR: tapset ${f} changed while stap was reading it; run again\n`);
      throw new PassFailed(2);
    }
    return this.astData.get(f)!;
  }

  /**
   * A fresh AST of a tapset file (errors are reported through the session's diagnostics).  Its
   * function bodies and alias definitions are decoded when first used (tapset_ast.ts).
   */
  load(f: string): A.StapFile | null {
    let data = this.astData.get(f);
    for (const dir of this.readDirs) {
      if (data !== undefined) break;
      data = readCachedAst(this.astPath(dir, f)!, (h) => h.stamp === this.stamps.get(f) && h.key === this.baseKey, () => this.parseAgain(f));
    }
    if (data === undefined) {
      this.parseAndCache(f, stampOf(f) ?? '');
      data = this.astData.get(f)!;
    }
    if (isFailedParse(data)) {
      // report the parse errors now that the file is actually needed
      parser().parseFile(this.sourceFile(f), this.parseOpts(), this.opts.diag);
      return null;
    }
    const fileFor = (name: string, isTapset: boolean) => (isTapset ? this.sourceFile(name) : lazySourceFile(name));
    try {
      const ast = decodeTapsetAst(data, fileFor);
      this.astData.set(f, data);
      return ast;
    } catch (e) {
      if (!(e instanceof DamagedEntry || e instanceof SyntaxError)) throw e;
      // a damaged cache entry: parsed anew, never trusted
      this.parseAndCache(f, stampOf(f) ?? '');
      return decodeTapsetAst(this.astData.get(f)!, fileFor);
    }
  }
}

/**
 * A cached tapset AST file: its header line checked by `valid` (another run with other options
 * or arguments may have rewritten it since the index was made), then the encoded AST.  Only the
 * head (header, file table, shell) is read now; deferred declarations are read from the file
 * as they are used, the rest of the file at once after the first few.  The encoding is a
 * function of the header (source stamp, options), so a later read that finds the same header
 * and size finds the same bytes; if another run has rewritten the entry meanwhile, the parts
 * come from `again()` (the tapset parsed anew, when it still has the same stamp).
 */
function readCachedAst(file: string, valid: (h: { stamp: string; key: string }) => boolean, again: () => EncodedAst): EncodedAst | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  let head: Buffer;
  let size: number;
  try {
    size = fs.fstatSync(fd).size;
    head = Buffer.allocUnsafe(Math.min(size, 1 << 16));
    let got = fs.readSync(fd, head, 0, head.length, 0);
    // the header line, then the file table, shell and deferred-part lines
    const headRead = (): boolean => {
      let at = -1;
      for (let i = 0; i < 4; i++) if ((at = head.indexOf(10, at + 1)) < 0 || at >= got) return false;
      return true;
    };
    while (!headRead() && got < size) {
      const more = Buffer.allocUnsafe(Math.min(size, head.length * 4));
      head.copy(more, 0, 0, got);
      head = more;
      const n = fs.readSync(fd, head, got, head.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    head = head.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
  const nl = head.indexOf(10);
  if (nl < 0) return undefined;
  const start = nl + 1;
  try {
    const h = JSON.parse(head.toString('utf8', 0, nl)) as { stamp: string; key: string; head: number };
    if (!valid(h) || (!isFailedParse(inMemory(head, start)) && h.head !== headCrc(head, start))) return undefined;
  } catch {
    return undefined;
  }
  const header = head.subarray(0, start);
  let rest: EncodedAst | null = head.length === size ? inMemory(head, start) : null;
  let reads = 0;
  /** The bytes at [from, from + n) of the entry, if it is still the one the head came from. */
  const readBack = (from: number, n: number): Buffer | null => {
    try {
      const b = fs.readFileSync(file);
      return b.length === size && b.subarray(0, start).equals(header) ? b.subarray(from, from + n) : null;
    } catch {
      return null;
    }
  };
  const part = (o: number, n: number, crc: number): Buffer => {
    if (!rest && ++reads > 8) {
      const all = readBack(0, size);
      rest = all ? inMemory(all, start) : again();
    }
    if (rest) {
      const b = rest.part(o, n, crc);
      if (crc32(b) === crc) return b;
      // a damaged entry: the tapset parsed anew
      rest = again();
      return rest.part(o, n, crc);
    }
    let b: Buffer | null = Buffer.allocUnsafe(start + n);
    try {
      const pfd = fs.openSync(file, 'r');
      try {
        if (fs.fstatSync(pfd).size !== size || fs.readSync(pfd, b, 0, start, 0) !== start || !b.subarray(0, start).equals(header)
          || fs.readSync(pfd, b, start, n, start + o) !== n) b = null;
      } finally {
        fs.closeSync(pfd);
      }
    } catch {
      b = null;
    }
    if (b && crc32(b.subarray(start, start + n)) === crc) return b.subarray(start, start + n);
    rest = again();
    return rest.part(o, n, crc);
  };
  return { head, start, part };
}

/** CRC-32 of an encoded AST's three head lines (file table, shell, deferred-part table) from `start`. */
function headCrc(buf: Buffer, start: number): number {
  let at = start - 1;
  for (let i = 0; i < 3 && at < buf.length; i++) {
    const nl = buf.indexOf(10, at + 1);
    at = nl < 0 ? buf.length : nl;
  }
  return crc32(buf.subarray(start, Math.min(at + 1, buf.length)));
}

/** The shape of an index file's entries. */
function validIndex(idx: IndexFile): boolean {
  if (!idx.files || typeof idx.files !== 'object' || Array.isArray(idx.files)) return false;
  const names = (l: unknown) => Array.isArray(l) && l.every((x) => typeof x === 'string');
  return Object.values(idx.files).every((e) => !!e && typeof e.stamp === 'string' && !!e.index && names(e.index.functions)
    && names(e.index.globals) && names(e.index.roots));
}

/** The shape of a user script's syntax tree (a cached one; its contents only ever become data). */
function isStapFile(f: unknown): f is A.StapFile {
  const x = f as A.StapFile;
  return !!x && typeof x === 'object' && [x.functions, x.globals, x.probes, x.aliases, x.embeds].every(Array.isArray);
}

function indexOf(ast: A.StapFile): FileIndex {
  const functions = [...new Set(ast.functions.filter((f) => !f.isPrivate).map((f) => f.name))];
  const globals = [...new Set(ast.globals.filter((g) => !g.isPrivate).map((g) => g.name))];
  const roots: string[] = [];
  for (const a of ast.aliases) {
    for (const n of a.names) if (!roots.includes(n.components[0].name)) roots.push(n.components[0].name);
  }
  return { functions, globals, roots };
}

/** A read-only Map whose entries come from `source()` when first looked at. */
class LazyMap<K, V> extends Map<K, V> {
  private source: (() => Map<K, V>) | null;

  constructor(source: () => Map<K, V>) {
    super();
    this.source = source;
  }

  private ready(): void {
    const s = this.source;
    if (!s) return;
    this.source = null;
    for (const [k, v] of s()) super.set(k, v);
  }

  override get(k: K): V | undefined { this.ready(); return super.get(k); }
  override has(k: K): boolean { this.ready(); return super.has(k); }
  override get size(): number { this.ready(); return super.size; }
  override keys(): MapIterator<K> { this.ready(); return super.keys(); }
  override values(): MapIterator<V> { this.ready(); return super.values(); }
  override entries(): MapIterator<[K, V]> { this.ready(); return super.entries(); }
  override [Symbol.iterator](): MapIterator<[K, V]> { this.ready(); return super[Symbol.iterator](); }
  override forEach(f: (v: V, k: K, m: Map<K, V>) => void, self?: unknown): void { this.ready(); super.forEach(f, self); }
  override set(k: K, v: V): this { this.ready(); return super.set(k, v); }
  override delete(k: K): boolean { this.ready(); return super.delete(k); }
  override clear(): void { this.source = null; super.clear(); }
}

/**
 * The `.stp` and `.stpm` files of each dir and its `linux/`, `ARCH/`, `linux/ARCH/`
 * subdirectories, sorted per dir, with their stamps: one readdir per directory and one stat per
 * file (the stat both says the name is a file, through symbolic links, and gives its stamp).
 */
function scanDirs(dirs: string[]): { stp: Map<string, string>; stpm: Map<string, string> } {
  const stp = new Map<string, string>();
  const stpm = new Map<string, string>();
  for (const d of dirs) {
    for (const sub of ['', 'linux', ARCH, path.join('linux', ARCH)]) {
      const dir = path.resolve(d, sub);
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch {
        continue;
      }
      for (const n of names.sort()) {
        const out = n.endsWith('.stp') ? stp : n.endsWith('.stpm') ? stpm : null;
        if (!out) continue;
        const p = path.join(dir, n);
        try {
          const st = fs.statSync(p, { throwIfNoEntry: false });
          if (st?.isFile()) out.set(p, statStamp(st));
        } catch {
          // skip
        }
      }
    }
  }
  return { stp, stpm };
}

/** The repository's stdlib/ directory (dist/src/elaborate -> repo root, or src/elaborate). */
export function stdlibDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const cand = path.join(dir, 'stdlib');
    if (fs.existsSync(cand) && fs.existsSync(path.join(dir, 'package.json'))) return cand;
    dir = path.dirname(dir);
  }
  return path.join(__dirname, '..', '..', '..', 'stdlib');
}
