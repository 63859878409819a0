import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import type * as A from '../../src/ast';
import { encodeTapsetAst, decodeTapsetAst, inMemory, isDeferred, aliasNamePaths, isFailedParse } from '../../src/elaborate/tapset_ast';
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
    expect(aliasNamePaths(d.aliases[1])).to.deep.equal([[['lib', 'none'], ['named', 'none']]]);
    expect(aliasNamePaths(d.aliases[2])).to.deep.equal([[['lib', 'none'], ['num', 'none']], [['lib', 'none'], ['other', 'none']]]);
    expect(aliasNamePaths(d.aliases[3])).to.deep.equal([[['lib', 'none'], ['*', 'none'], ['deep', 'none']]]);
    expect(helper.body.k).to.equal('block');
    expect(isDeferred(helper, 'body')).to.equal(false);
    expect(isDeferred(d.aliases[0], 'names')).to.equal(true);
    // writing a deferred key first reads the others
    (d.aliases[0] as { prologue?: A.Block }).prologue = undefined;
    expect(d.aliases[0].points.length).to.equal(1);
    expect(aliasNamePaths(d.aliases[0])).to.equal(undefined);
    expect('names' in d.aliases[1] && Object.keys(d.aliases[1])).to.include.members(['names', 'points', 'epilogue', 'tok', 'file']);
    expect(isDeferred(d.aliases[1], 'names')).to.equal(false);
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
