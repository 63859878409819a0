import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import type * as A from '../../src/ast';
import { encodeTapsetAst, decodeTapsetAst, inMemory, isDeferred, aliasTrieOf, isFailedParse } from '../../src/elaborate/tapset_ast';
import { MatchNode } from '../../src/elaborate/probes';
import { attachAlias, attachAliases } from '../../src/elaborate/aliases';
import { serialize, deserialize, TapsetLibrary } from '../../src/elaborate/tapsets';
import { elaborate, printProgram } from '../../src/elaborate';

const TAPSET = `
global tick_count = 0
function helper(x) { return x * 2 }
function raw:long () %{ STAP_RETURN(1); %}
private function hidden(s) { return s . "!" }
probe lib.tick = timer.ms(10) { tick_count++; tick_no = helper(tick_count) }
probe lib.named += timer.s(1) { m = 2 }
probe lib.num = lib.other = timer.s(2) { m = 3 }
probe lib.*.deep = begin ? { d = hidden("é") }
probe lib.forward = lib.tick {}
probe lib.forward2 = lib.tick { }
`;

function parseTapset(text: string): A.StapFile {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
  const f = parseFile({ name: '/lib/t.stp', text, isTapset: true }, { args: [], guru: true }, diag);
  if (!f) throw new Error('tapset did not parse');
  return f;
}

describe('tapset AST cache: per-declaration loading', () => {
  const files = new Map<string, A.SourceFile>();
  const fileFor = (name: string, isTapset: boolean): A.SourceFile => {
    let f = files.get(name);
    if (!f) files.set(name, (f = { name, isTapset, text: '' }));
    return f;
  };

  it('decodes to the same AST as the whole-file form, once every part is read', () => {
    const ast = parseTapset(TAPSET);
    const whole = deserialize<A.StapFile>(serialize(ast), fileFor);
    const lazy = decodeTapsetAst(inMemory(Buffer.from(encodeTapsetAst(ast), 'utf8')), fileFor);
    // JSON.stringify reads every key (and lists them in order), so it fills every declaration
    expect(JSON.stringify(lazy, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)))
      .to.equal(JSON.stringify(whole, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
    expect(Object.keys(lazy.functions[0])).to.deep.equal(Object.keys(ast.functions[0]));
  });

  it('leaves bodies and alias definitions unread until used', () => {
    const ast = parseTapset(TAPSET);
    const d = decodeTapsetAst(inMemory(Buffer.from(encodeTapsetAst(ast), 'utf8')), fileFor);
    const [helper, raw] = d.functions;
    expect(helper.name).to.equal('helper');
    expect(helper.params.map((p) => p.name)).to.deep.equal(['x']);
    expect(isDeferred(helper, 'body')).to.equal(true);
    expect(isDeferred(raw, 'body')).to.equal(false); // embedded code is in the shell
    expect(raw.body.k).to.equal('embedded');
    expect(d.aliases.every((a) => isDeferred(a, 'names'))).to.equal(true);
    // the names' trie: per level [name, kind, (alias, name index) pairs, next level]
    expect(aliasTrieOf(d)).to.deep.equal([['lib', '-', [], [
      ['tick', '-', [0, 0], 0], ['named', '-', [1, 0], 0], ['num', '-', [2, 0], 0], ['other', '-', [2, 1], 0],
      ['*', '-', [], [['deep', '-', [3, 0], 0]]], ['forward', '-', [4, 0], 0], ['forward2', '-', [5, 0], 0],
    ]]]);
    expect(aliasTrieOf(ast)).to.equal(undefined);
    expect(helper.body.k).to.equal('block');
    expect(isDeferred(helper, 'body')).to.equal(false);
    expect(isDeferred(d.aliases[0], 'names')).to.equal(true);
    // writing a deferred key first reads the others
    (d.aliases[0] as { prologue?: A.Block }).prologue = undefined;
    expect(d.aliases[0].points.length).to.equal(1);
    expect('names' in d.aliases[1] && Object.keys(d.aliases[1])).to.include.members(['names', 'points', 'epilogue', 'tok', 'file']);
    expect(isDeferred(d.aliases[1], 'names')).to.equal(false);
  });

  it('attaches a decoded file\'s aliases a level at a time, to the tree attaching each name builds', () => {
    const other = parseTapset('probe lib.other.more = begin {}\nprobe lib.tick = end {}\nprobe zz.top = never {}\n');
    const build = (lazy: boolean): MatchNode => {
      const root = new MatchNode('', 'none');
      const first = decodeTapsetAst(inMemory(Buffer.from(encodeTapsetAst(parseTapset(TAPSET)), 'utf8')), fileFor);
      if (lazy) attachAliases(root, first);
      else for (const a of first.aliases) attachAlias(root, a);
      // a parsed (not decoded) file after it attaches name by name
      attachAliases(root, other);
      return root;
    };
    const lazy = build(true);
    const shape = (n: MatchNode): unknown => [n.name, n.arg, n.aliases.map((e) => `${e.decl.names[e.nameIndex].components.map((c) => c.name).join('.')}`),
      [...n.children.entries()].map(([k, c]) => [k, shape(c)])];
    expect(shape(lazy)).to.deep.equal(shape(build(false)));
    expect(lazy.children.get('lib')!.children.get('tick')!.aliases.map((e) => e.decl.points[0].components[0].name)).to.deep.equal(['timer', 'end']);
    // unread declarations are read when a node's aliases are expanded, not when attached
    const d = decodeTapsetAst(inMemory(Buffer.from(encodeTapsetAst(parseTapset(TAPSET)), 'utf8')), fileFor);
    const root = new MatchNode('', 'none');
    attachAliases(root, d);
    const lib = root.children.get('lib')!;
    // reaching `lib` spread the top level only: the next one waits
    expect((lib as unknown as { pendingLevels: unknown }).pendingLevels).to.not.equal(null);
    lib.children.get('num')!.aliases.forEach(() => undefined);
    expect(d.aliases.map((a) => isDeferred(a, 'names'))).to.deep.equal([true, true, true, true, true, true]);
  });

  it('keeps an empty prologue in the part table, decoded as a parsed one', () => {
    const ast = parseTapset(TAPSET);
    const encoded = encodeTapsetAst(ast);
    const refs = JSON.parse(encoded.split('\n')[2]) as { aliases: number[][] };
    // lib.forward and lib.forward2 (`{}`, `{ }`): [file, line, col] of their `{`, no part
    expect(refs.aliases.map((a) => a.length)).to.deep.equal([8, 8, 8, 8, 7, 7]);
    expect(refs.aliases[4].slice(4)).to.deep.equal([0, 10, 30]);
    const d = decodeTapsetAst(inMemory(Buffer.from(encoded, 'utf8')), fileFor);
    const fwd = d.aliases[4];
    expect(isDeferred(fwd, 'prologue')).to.equal(true);
    const withFile = (_k: string, v: unknown) => (v && typeof v === 'object' && 'isTapset' in v ? (v as A.SourceFile).name : v);
    expect(JSON.stringify(fwd.prologue, withFile)).to.equal(JSON.stringify(ast.aliases[4].prologue, withFile));
    expect(fwd.prologue!.tok.file).to.equal(fileFor('/lib/t.stp', true));
    expect(Object.keys(fwd)).to.deep.equal(Object.keys(ast.aliases[4]));
  });

  it('keeps non-Latin-1-safe offsets right (UTF-8 bytes, not characters)', () => {
    const ast = parseTapset(TAPSET);
    const d = decodeTapsetAst(inMemory(Buffer.from(encodeTapsetAst(ast), 'utf8')), fileFor);
    const body = d.aliases[3].prologue!;
    expect(JSON.stringify(body)).to.contain('é');
  });

  it('marks a failed parse', () => {
    expect(isFailedParse(inMemory(Buffer.from(encodeTapsetAst(null))))).to.equal(true);
    expect(isFailedParse(inMemory(Buffer.from(encodeTapsetAst(parseTapset(TAPSET)))))).to.equal(false);
  });

  it('elaborates the same from a cold and a warm cache, with library macros cached', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tapset-ast-'));
    try {
      const lib = path.join(tmp, 'lib');
      fs.mkdirSync(lib);
      fs.writeFileSync(path.join(lib, 't.stp'), TAPSET);
      fs.writeFileSync(path.join(lib, 'm.stpm'), '@define twice(x) %( (@x) * 2 %)\n');
      const cache = path.join(tmp, 'cache');
      const runOnce = (script: string): string => {
        let err = '';
        const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { err += s; });
        const library = new TapsetLibrary({ dirs: [lib], parse: { args: [], guru: false }, diag, cacheDir: cache, builtCacheDir: null });
        const f = parseFile({ name: '-', text: script, isTapset: false }, { args: [], guru: false, libraryMacros: library.macros() as never }, diag);
        const prog = f && elaborate([f], { guru: false, library, args: [] }, diag);
        return (prog ? printProgram(prog) : '') + err;
      };
      const script = 'probe lib.tick { println(@twice(tick_no)) } probe lib.named { println(1) } probe lib.other {}';
      const cold = runOnce(script);
      expect(cold).to.contain('helper:long (x:long)');
      expect(cold).to.contain('timer.s(1)');
      expect(fs.readdirSync(cache).some((n) => n.startsWith('macros-'))).to.equal(true);
      expect(runOnce(script)).to.equal(cold);
      // a changed macro file is seen
      fs.writeFileSync(path.join(lib, 'm.stpm'), '@define thrice(x) %( (@x) * 3 %)\n');
      expect(runOnce(script)).to.contain('unknown operator @twice');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  it('with an extra -I directory, reuses the library-only index instead of reparsing the library', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tapset-ast-'));
    try {
      const lib = path.join(tmp, 'lib');
      const inc = path.join(tmp, 'inc');
      fs.mkdirSync(lib);
      fs.mkdirSync(inc);
      fs.writeFileSync(path.join(lib, 't.stp'), TAPSET);
      fs.writeFileSync(path.join(inc, 'g.stp'), 'global test_global = 1\n');
      const cache = path.join(tmp, 'cache');
      const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, () => {});
      const open = (dirs: string[]) => new TapsetLibrary({ dirs, parse: { args: [], guru: false }, diag, cacheDir: cache, builtCacheDir: null });
      open([lib]);
      const astDir = path.join(cache, 'ast');
      for (const n of fs.readdirSync(astDir)) fs.rmSync(path.join(astDir, n));
      const both = open([lib, inc]);
      // only the -I file was parsed (and its AST written); the library's entries came from its index
      expect(fs.readdirSync(astDir)).to.have.length(1);
      expect(both.allFiles().map((f) => path.basename(f)).sort()).to.deep.equal(['g.stp', 't.stp']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
