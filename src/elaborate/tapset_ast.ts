/**
 * Cached tapset ASTs with per-declaration lazy loading.  A tapset file's AST is stored as
 *
 *   <source files JSON>\n<shell JSON>\n<where the deferred parts are, JSON>\n<deferred parts>
 *
 * The shell is the whole StapFile except the bulky parts of its declarations: the body of a
 * script function, and everything of a probe alias (the file's alias names are summarised in a
 * trie, what attaching them to the probe-point tree needs: aliasTrie()).  Those parts are stored
 * after it, each as its own JSON text, at byte offsets the third line gives.  Decoding builds the
 * shell only (function names and parameters, globals, probes, embedded code, the alias-name
 * trie): a deferred part
 * is read and parsed the first time one of its keys is read or written, so a script using one
 * alias of syscalls.stp deserialises that alias and the functions it reaches, not the file's
 * 3 MB.  Semantics do not change: every declaration is there, with the same fields, whether it
 * was touched or not.
 *
 * Token `file` fields are "\0<index>" into the source-file table, other source-file references
 * {"$sf": index}, bigints {"$big": "digits"} (the same encoding as tapsets.ts's serialize());
 * a deferred part writes each of its tokens once (AstWriter.stringifyPart).
 * Each deferred part carries the CRC-32 of its bytes (checked when it is read: a damaged cache
 * entry is parsed anew, never trusted); decoding refuses `__proto__` keys.
 */
import type * as A from '../ast';
import { argKind, ArgKind } from './probes';
import type { AliasTrieLevel, AliasTrieEntry } from './probes';
import { crc32 } from '../cachedir';

/** A cache entry that is not what this module writes. */
export class DamagedEntry extends Error {}

function isSourceFile(v: unknown): v is A.SourceFile {
  return !!v && typeof v === 'object' && 'isTapset' in (v as object) && 'name' in (v as object) && !('k' in (v as object));
}

/** JSON.stringify with the source-file table and bigint tags. */
export class AstWriter {
  readonly files: A.SourceFile[] = [];

  fileIndex(f: A.SourceFile): number {
    let i = this.files.indexOf(f);
    if (i < 0) i = this.files.push(f) - 1;
    return i;
  }

  stringify(value: unknown): string {
    const self = this;
    return JSON.stringify(value, function (key, v) {
      if (key === 'lines') return undefined;
      if (typeof v === 'bigint') return { $big: v.toString() };
      if (isSourceFile(v)) return key === 'file' ? `\0${self.fileIndex(v)}` : { $sf: self.fileIndex(v) };
      return v;
    });
  }

  fileTable(): string {
    return JSON.stringify(this.files.map((f) => ({ name: f.name, isTapset: f.isTapset })));
  }

  /**
   * A deferred part: `{"t": tokens, "v": value}`, each token of `value` written once in `t` as
   * [kind, text, file index, line, col, chain, expansion] (the last two token indices, -1 for
   * none; a token's chain and expansion come before it) and referred to as "\u0001<index>";
   * a string that itself starts with \u0001 is written {"$s": string}.  A macro-expanded body
   * repeats its invocation token in every token's chain and expansion, and a statement its
   * expression's token: written once, the part is about half the size and parses in half the time.
   */
  stringifyPart(value: unknown): string {
    const tokens: unknown[][] = [];
    const byObject = new Map<object, number>();
    const byValue = new Map<string, number>();
    const tokenIndex = (t: A.Token): number => {
      let i = byObject.get(t);
      if (i !== undefined) return i;
      const rec: unknown[] = [t.kind, t.text, this.fileIndex(t.file), t.line, t.col,
        t.chain ? tokenIndex(t.chain) : -1, t.expansion ? tokenIndex(t.expansion) : -1];
      const key = JSON.stringify(rec);
      i = byValue.get(key);
      if (i === undefined) {
        i = tokens.push(rec) - 1;
        byValue.set(key, i);
      }
      byObject.set(t, i);
      return i;
    };
    const self = this;
    const v = JSON.stringify(value, function (key, x) {
      if (key === 'lines') return undefined;
      if (typeof x === 'bigint') return { $big: x.toString() };
      if (typeof x === 'string') return x.charCodeAt(0) === 1 ? { $s: x } : x;
      if (isToken(x)) return `\u0001${tokenIndex(x)}`;
      if (isSourceFile(x)) return key === 'file' ? `\0${self.fileIndex(x)}` : { $sf: self.fileIndex(x) };
      return x;
    });
    return `{"t":${JSON.stringify(tokens)},"v":${v}}`;
  }
}

const TOKEN_KEYS = new Set(['kind', 'text', 'file', 'line', 'col', 'chain', 'expansion']);

/** A lexer token (and nothing else: every key one of Token's). */
function isToken(v: unknown): v is A.Token {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  if (typeof t.kind !== 'string' || typeof t.text !== 'string' || typeof t.line !== 'number' || typeof t.col !== 'number' || !isSourceFile(t.file)) return false;
  for (const k in t) if (!TOKEN_KEYS.has(k)) return false;
  return true;
}

/** A deferred part written by stringifyPart, decoded (source files from `files`). */
function decodePart(text: string, files: A.SourceFile[]): Record<string, unknown> {
  const o = JSON.parse(text) as { t: unknown[][]; v: Record<string, unknown> };
  if (!o || !Array.isArray(o.t) || !o.v || typeof o.v !== 'object') throw new DamagedEntry('part');
  const toks: A.Token[] = new Array(o.t.length);
  const ref = (x: unknown, below: number): A.Token | undefined => {
    if (x === -1) return undefined;
    if (typeof x !== 'number' || !(x >= 0 && x < below)) throw new DamagedEntry('token reference');
    return toks[x];
  };
  for (let i = 0; i < o.t.length; i++) {
    const a = o.t[i];
    const file = files[a[2] as number];
    if (!Array.isArray(a) || a.length !== 7 || typeof a[0] !== 'string' || typeof a[1] !== 'string' || !file || typeof a[3] !== 'number' || typeof a[4] !== 'number') {
      throw new DamagedEntry('token');
    }
    const t: A.Token = { kind: a[0] as A.TokenKind, text: a[1], file, line: a[3], col: a[4] };
    const chain = ref(a[5], i);
    const expansion = ref(a[6], i);
    if (chain) t.chain = chain;
    if (expansion) t.expansion = expansion;
    toks[i] = t;
  }
  const str = (x: string): unknown => {
    if (x.charCodeAt(0) !== 1) return x;
    const t = toks[+x.slice(1)];
    if (!t) throw new DamagedEntry('token reference');
    return t;
  };
  const revive = (v: Record<string, unknown> | unknown[]): unknown => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === 'object') v[i] = revive(x as Record<string, unknown>);
        else if (typeof x === 'string') v[i] = str(x);
      }
      return v;
    }
    if ('$big' in v) return BigInt(v.$big as string);
    if ('$sf' in v) return files[v.$sf as number];
    if ('$s' in v) return v.$s;
    for (const k in v) {
      if (k === '__proto__') throw new DamagedEntry('__proto__ key');
      const x = v[k];
      if (x !== null && typeof x === 'object') v[k] = revive(x as Record<string, unknown>);
      else if (typeof x === 'string') v[k] = k === 'file' && x.charCodeAt(0) === 0 ? files[+x.slice(1)] : str(x);
    }
    return v;
  };
  return revive(o.v) as Record<string, unknown>;
}

/** Restores source files and bigints in parsed JSON, in place. */
export function reviver(files: A.SourceFile[]): (v: unknown) => unknown {
  const revive = (v: Record<string, unknown> | unknown[]): unknown => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === 'object') v[i] = revive(x as Record<string, unknown>);
      }
      return v;
    }
    if ('$big' in v) return BigInt(v.$big as string);
    if ('$sf' in v) return files[v.$sf as number];
    for (const k in v) {
      if (k === '__proto__') throw new DamagedEntry('__proto__ key');
      const x = v[k];
      if (x !== null && typeof x === 'object') v[k] = revive(x as Record<string, unknown>);
      else if (k === 'file' && typeof x === 'string' && x.charCodeAt(0) === 0) v[k] = files[+x.slice(1)];
    }
    return v;
  };
  return (v) => (v !== null && typeof v === 'object' ? revive(v as Record<string, unknown>) : v);
}

/** The keys of a declaration stored apart from the shell. */
function deferredKeys(kind: 'function' | 'alias', d: Record<string, unknown>): string[] {
  if (kind === 'function') return (d.body as { k?: string } | undefined)?.k === 'embedded' ? [] : ['body'];
  return Object.keys(d);
}

/**
 * An alias is stored in two parts: its names and points, then its bodies (prologue, epilogue),
 * read only when a derivation through it succeeds (a `dw_syscall.NAME !` that finds no function
 * never reads its body).
 */
const ALIAS_BODY_KEYS = ['prologue', 'epilogue'];

/** The alias-name trie of `aliases` (as decodeTapsetAst gives it for a cached file). */
export function aliasTrie(aliases: readonly A.AliasDecl[]): AliasTrieLevel {
  const top: AliasTrieLevel = [];
  aliases.forEach((a, ai) => a.names.forEach((n, ni) => {
    let level = top;
    let entry: AliasTrieEntry | undefined;
    for (const c of n.components) {
      const kind = KIND_CHAR[argKind(c)];
      if (entry) level = entry[3] || (entry[3] = []);
      entry = level.find((e) => e[0] === c.name && e[1] === kind);
      if (!entry) level.push((entry = [c.name, kind, [], 0]));
    }
    entry![2].push(ai, ni);
  }));
  return top;
}

/** Decoded files and the trie of their aliases' names (see aliasTrieOf). */
const tries = new WeakMap<A.StapFile, AliasTrieLevel>();

/** The alias-name trie of a file from decodeTapsetAst (undefined for any other). */
export function aliasTrieOf(f: A.StapFile): AliasTrieLevel | undefined {
  return tries.get(f);
}

/**
 * Where the deferred parts are (the third line, not revived): key lists, then per function
 * [index, byte offset, byte length, key list, CRC-32], per alias [byte offset, byte length, key
 * list, CRC-32], and the aliases' name trie.
 */
interface DeferredRefs {
  keys: string[][];
  functions: [number, number, number, number, number][];
  /**
   * [offset, length, crc, key list] of the names and points, then (when there are bodies) of the
   * bodies, or [file index, line, col] of the `{` of an empty prologue, the alias's only body
   * (most syscall aliases: read without a part of their own)
   */
  aliases: number[][];
  trie: AliasTrieLevel;
}

const isNat = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** The deferred-part table's shape, checked before it is used. */
function checkRefs(r: DeferredRefs, nFunctions: number): void {
  const ok = !!r && Array.isArray(r.keys) && r.keys.every((k) => Array.isArray(k) && k.every((x) => typeof x === 'string' && x !== '__proto__'))
    && Array.isArray(r.functions) && r.functions.every((f) => Array.isArray(f) && f.length === 5 && f.every(isNat) && f[0] < nFunctions && f[3] < r.keys.length)
    && Array.isArray(r.aliases) && r.aliases.every((a) => Array.isArray(a) && (a.length === 4 || a.length === 7 || a.length === 8) && a.every(isNat) && a[3] < r.keys.length && (a.length !== 8 || a[7] < r.keys.length))
    && Array.isArray(r.trie);
  if (!ok) throw new DamagedEntry('deferred-part table');
}

const KIND_CHAR: Record<ArgKind, string> = { none: '-', number: '#', string: '$' };
/** Argument kinds of probe-point components as the trie writes them. */
export const TRIE_KINDS: Record<string, ArgKind> = { '-': 'none', '#': 'number', $: 'string' };

/**
 * The `{` of an empty block `{}` (keys k, stmts, tok; its token not from a macro), which the
 * deferred-part table then holds in place of a part; null for any other block.
 */
function emptyBlockAt(b: A.Block | undefined): A.Token | null {
  if (!b || b.k !== 'block' || b.stmts.length !== 0 || Object.keys(b).join() !== 'k,stmts,tok') return null;
  const t = b.tok;
  if (!isToken(t) || t.kind !== 'operator' || t.text !== '{' || t.chain || t.expansion || Object.keys(t).join() !== 'kind,text,file,line,col') return null;
  return t;
}

/** Encode a tapset file's AST (null: the file failed to parse). */
export function encodeTapsetAst(ast: A.StapFile | null): string {
  if (!ast) return 'null';
  const w = new AstWriter();
  const parts: string[] = [];
  const refs: DeferredRefs = { keys: [], functions: [], aliases: [], trie: aliasTrie(ast.aliases) };
  const keyList = (keys: string[]): number => {
    const id = keys.join(',');
    const i = refs.keys.findIndex((k) => k.join(',') === id);
    return i >= 0 ? i : refs.keys.push(keys) - 1;
  };
  let offset = 0;
  const store = (d: Record<string, unknown>, keys: string[]): [number, number, number] => {
    const heavy: Record<string, unknown> = {};
    for (const k of keys) heavy[k] = d[k];
    const text = w.stringifyPart(heavy);
    const bytes = Buffer.from(text, 'utf8');
    parts.push(text);
    offset += bytes.length;
    return [offset - bytes.length, bytes.length, crc32(bytes)];
  };
  const functions = ast.functions.map((f, index) => {
    const rec = f as unknown as Record<string, unknown>;
    const keys = deferredKeys('function', rec);
    if (!keys.length) return f;
    // a deferred key keeps its place in the shell (as 0), so the declaration's keys keep their order
    const light: Record<string, unknown> = {};
    for (const k of Object.keys(rec)) light[k] = keys.includes(k) ? 0 : rec[k];
    const [off, len, crc] = store(rec, keys);
    refs.functions.push([index, off, len, keyList(keys), crc]);
    return light;
  });
  for (const a of ast.aliases) {
    const rec = a as unknown as Record<string, unknown>;
    const keys = deferredKeys('alias', rec);
    const head = keys.filter((k) => !ALIAS_BODY_KEYS.includes(k));
    const body = keys.filter((k) => ALIAS_BODY_KEYS.includes(k));
    const empty = body.length === 1 && body[0] === 'prologue' ? emptyBlockAt(a.prologue) : null;
    refs.aliases.push([...store(rec, head), keyList(head),
      ...(empty ? [w.fileIndex(empty.file), empty.line, empty.col] : body.length ? [...store(rec, body), keyList(body)] : [])]);
  }
  const shell = w.stringify({ ...ast, functions, aliases: [] });
  return w.fileTable() + '\n' + shell + '\n' + JSON.stringify(refs) + '\n' + parts.join('');
}

/**
 * An encoded AST in a file or in memory: `head` holds at least its first three lines from byte
 * `start` on; `part(offset, length, crc)` gives the bytes counted from `start` (a file-backed
 * one checks them against `crc`).
 */
export interface EncodedAst {
  head: Buffer;
  start: number;
  part(offset: number, length: number, crc: number): Buffer;
}

/** An encoded AST held in memory. */
export function inMemory(buf: Buffer, start = 0): EncodedAst {
  return { head: buf, start, part: (o, n) => buf.subarray(start + o, start + o + n) };
}

/** True when an encoded AST is a failed parse. */
export function isFailedParse(e: EncodedAst): boolean {
  return e.head.length - e.start === 4 && e.head.toString('latin1', e.start) === 'null';
}

/** Deferred keys of a decoded declaration not read yet, and how to read them (one or more parts). */
interface Pending {
  keys: string[];
  load: () => Record<string, unknown>;
}

/** By the plain object behind each declaration's proxy. */
const pending = new WeakMap<object, Pending[]>();
const targetOf = new WeakMap<object, object>();

function fillPart(target: Record<string, unknown>, parts: Pending[], i: number): void {
  const p = parts[i];
  parts.splice(i, 1);
  if (!parts.length) pending.delete(target);
  const heavy = p.load();
  for (const k of p.keys) target[k] = heavy[k];
}

function fill(target: Record<string, unknown>): void {
  const parts = pending.get(target);
  while (parts && parts.length) fillPart(target, parts, 0);
}

function fillFor(target: object, key: string | symbol): void {
  const parts = pending.get(target);
  if (!parts || typeof key !== 'string') return;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].keys.includes(key)) return fillPart(target as Record<string, unknown>, parts, i);
  }
}

/**
 * Declarations are proxies over plain objects whose deferred keys hold 0 until one of them is
 * used in any way (read, written, described, deleted, or all keys listed): then they are all
 * filled in, and the proxy only forwards.  Defining accessors instead costs more per
 * declaration than decoding the whole shell.
 */
const handler: ProxyHandler<Record<string, unknown>> = {
  get(t, k, r) {
    fillFor(t, k);
    return Reflect.get(t, k, r);
  },
  set(t, k, v, r) {
    fillFor(t, k);
    return Reflect.set(t, k, v, r);
  },
  getOwnPropertyDescriptor(t, k) {
    fillFor(t, k);
    return Reflect.getOwnPropertyDescriptor(t, k);
  },
  defineProperty(t, k, d) {
    fillFor(t, k);
    return Reflect.defineProperty(t, k, d);
  },
  deleteProperty(t, k) {
    fillFor(t, k);
    return Reflect.deleteProperty(t, k);
  },
  ownKeys(t) {
    fill(t);
    return Reflect.ownKeys(t);
  },
};

function defer(target: Record<string, unknown>, ...parts: Pending[]): object {
  pending.set(target, parts);
  const proxy = new Proxy(target, handler);
  targetOf.set(proxy, target);
  return proxy;
}

/** True while `key` of a decoded declaration has not been read yet. */
export function isDeferred(obj: object, key: string): boolean {
  const t = targetOf.get(obj);
  return !!t && !!pending.get(t)?.some((p) => p.keys.includes(key));
}

/**
 * The deferred part of a decoded declaration that holds `key`, decoded anew for the caller
 * alone (the declaration keeps it deferred), or null once the declaration has it filled in.
 * An alias body used once (each alias of a `syscall.*`) is then decoded once and not copied.
 */
export function freshDeferred(obj: object, key: string): Record<string, unknown> | null {
  const t = targetOf.get(obj);
  const p = t && pending.get(t)?.find((x) => x.keys.includes(key));
  return p ? p.load() : null;
}

/** A fresh StapFile from an encoded AST (not a failed parse). */
export function decodeTapsetAst(e: EncodedAst, fileFor: (name: string, isTapset: boolean) => A.SourceFile): A.StapFile {
  const { head, start } = e;
  const nl1 = head.indexOf(10, start);
  const nl2 = head.indexOf(10, nl1 + 1);
  const nl3 = head.indexOf(10, nl2 + 1);
  if (nl1 < 0 || nl2 < 0 || nl3 < 0) throw new DamagedEntry('truncated');
  const table = JSON.parse(head.toString('utf8', start, nl1)) as { name: string; isTapset: boolean }[];
  if (!Array.isArray(table) || !table.every((f) => f && typeof f.name === 'string' && typeof f.isTapset === 'boolean')) throw new DamagedEntry('file table');
  const files = table.map((f) => fileFor(f.name, f.isTapset));
  const revive = reviver(files);
  const base = nl3 + 1 - start;
  const ast = revive(JSON.parse(head.toString('utf8', nl1 + 1, nl2))) as A.StapFile;
  if (!ast || !Array.isArray(ast.functions) || !Array.isArray(ast.aliases) || !Array.isArray(ast.globals) || !Array.isArray(ast.probes)) {
    throw new DamagedEntry('file shell');
  }
  const refs = JSON.parse(head.toString('utf8', nl2 + 1, nl3)) as DeferredRefs;
  checkRefs(refs, ast.functions.length);
  const loader = (off: number, len: number, crc: number) => (): Record<string, unknown> =>
    decodePart(e.part(base + off, len, crc).toString('utf8'), files);
  // (plain indexing: destructuring runs the iterator protocol, slow in code run once)
  const fns = ast.functions as unknown as object[];
  for (let i = 0; i < refs.functions.length; i++) {
    const r = refs.functions[i];
    fns[r[0]] = defer(fns[r[0]] as Record<string, unknown>, { keys: refs.keys[r[3]], load: loader(r[1], r[2], r[4]) });
  }
  const aliases = ast.aliases as unknown as object[];
  for (let i = 0; i < refs.aliases.length; i++) {
    const r = refs.aliases[i];
    const keys = refs.keys[r[3]];
    const t: Record<string, unknown> = {};
    for (let j = 0; j < keys.length; j++) t[keys[j]] = 0;
    if (r.length === 7) {
      // an empty prologue: the block decodePart would make of its part, made here
      const file = files[r[4]];
      if (!file) throw new DamagedEntry('token');
      const line = r[5], col = r[6];
      const emptyPrologue = (): Record<string, unknown> =>
        ({ prologue: { k: 'block', stmts: [], tok: { kind: 'operator', text: '{', file, line, col } } });
      t.prologue = 0;
      aliases.push(defer(t, { keys, load: loader(r[0], r[1], r[2]) }, { keys: ['prologue'], load: emptyPrologue }));
    } else if (r.length > 4) {
      const bodyKeys = refs.keys[r[7]];
      for (let j = 0; j < bodyKeys.length; j++) t[bodyKeys[j]] = 0;
      aliases.push(defer(t, { keys, load: loader(r[0], r[1], r[2]) }, { keys: bodyKeys, load: loader(r[4], r[5], r[6]) }));
    } else aliases.push(defer(t, { keys, load: loader(r[0], r[1], r[2]) }));
  }
  tries.set(ast, refs.trie);
  return ast;
}
