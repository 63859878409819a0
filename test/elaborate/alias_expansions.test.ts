/**
 * The build's records of what stdlib aliases derive (src/elaborate/alias_expansions.ts):
 * every stdlib alias, used optionally and not, is expanded again the slow way (with the same
 * deriver pass 2 has, recording: src/elaborate/alias_expansions_make.ts) and its record must be
 * the shard's, field by field, and an alias without a record must be one that cannot have one;
 * and the records are not used when they may not describe the run (an edited or added stdlib file, a file parsed
 * otherwise, a damaged shard).  That pass 2 prints the same replaying records or not:
 * alias_table.test.ts.  The slow path's outputs are the ones checked against real-stap
 * 4.8 by the golden and oracle tests.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { AliasTable, builtAliasTableFile, AliasTableData } from '../../src/elaborate/alias_table';
import { slowPath, SlowPath } from '../../src/elaborate/alias_table_make';
import { recorder, recordExpansion, Recorder, Recording, Elision } from '../../src/elaborate/alias_expansions_make';
import { ExpansionShards, ExpansionShard, RecordedExpansion, UseContext, builtExpansionsDir, EXPANSIONS_VERSION } from '../../src/elaborate/alias_expansions';
import { renderComponents } from '../../src/elaborate/util';
import { installKernelProbes } from '../../src/probes/setup';

/** A shard's record in the plain form recordExpansion returns. */
function plain(s: ExpansionShard, r: RecordedExpansion): Recording {
  const str = (i: number): string => s.strings[i];
  return {
    chain: str(r.c), roots: r.r.map(str), layers: r.l.map(([f, i, p]) => [str(f), i, p]),
    out: r.x.map((x) => {
      const [l, pn, mark, chain, rp] = x;
      const made: [number, string, string, string[], A.ResolvedPoint] = [l, str(pn), str(mark), chain.map(str), rp];
      if (x.length === 5) return made;
      const [at, names, lookups] = x[5];
      return [...made, [at, s.names[names].map(str), lookups.map((i) => s.lookups[i]).map((k) => (k.length === 2 ? [str(k[0]), str(k[1])]
        : [str(k[0]), str(k[1]), k[2], k[3].map(([f, line, col]) => [str(f), line, col])]))] as Elision];
    }),
  };
}

describe('alias expansions (what each stdlib alias derives, recorded at build time)', function () {
  this.timeout(600000);
  let lib: TapsetLibrary;
  let table: AliasTable;
  let data: AliasTableData;
  let sp: SlowPath;
  let rec: Recorder;
  let shards: ExpansionShards;
  const stdlib = path.resolve(stdlibDir());

  before(() => {
    installKernelProbes();
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
    lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: null });
    table = AliasTable.load(lib.key, stdlibDir())!;
    data = JSON.parse(fs.readFileSync(builtAliasTableFile(), 'utf8')) as AliasTableData;
    sp = slowPath(lib);
    // (pass 2 skips the aliases the build found to resolve to nothing where optional: so does the record)
    const silent = new Set<A.AliasDecl>();
    for (const [f, ast] of sp.files) for (const i of table.failures(f, lib.fileStamp(f)) ?? []) if (ast) silent.add(ast.aliases[i]);
    rec = recorder(sp, stdlib, (d) => silent.has(d));
    shards = new ExpansionShards();
  });

  /** Every record of a stdlib file against the slow path; the names of the aliases checked. */
  function check(rel: string, compare: (want: Recording | null, got: Recording | null, what: string) => void): number {
    const f = path.join(stdlib, rel);
    const ast = sp.files.get(f)!;
    const layout = table.layout(f);
    let n = 0;
    ast.aliases.forEach((decl, index) => {
      decl.names.forEach((name, nameIndex) => {
        for (const context of ['n', 'o'] as UseContext[]) {
          const found = layout && layout.of[index] !== ' ' ? shards.record(layout.shards[layout.of.charCodeAt(index) - 48], index, nameIndex, context) : null;
          const what = `${renderComponents(name.components)} (${context === 'o' ? 'optional' : 'required'} use)`;
          compare(recordExpansion(sp, rec, { decl, nameIndex }, context), found ? plain(found.shard, found.rec) : null, what);
          n++;
        }
      });
    });
    return n;
  }

  it('the build recorded expansions that hold for this checkout', () => {
    expect(table, 'dist/alias-table.json missing or stale after a build').to.not.equal(null);
    expect(table.expansionsHold(lib.allFiles(), (f) => lib.fileStamp(f), (f) => lib.parsedAsBuilt(f))).to.equal(true);
    const f = path.join(stdlib, 'syscalls.stp');
    const i = sp.files.get(f)!.aliases.findIndex((d) => renderComponents(d.names[0].components) === 'syscall.open');
    const l = table.layout(f)!;
    const found = shards.record(l.shards[l.of.charCodeAt(i) - 48], i, 0, 'n')!;
    const r = plain(found.shard, found.rec);
    // syscall.open = dw_syscall.open!, nd_syscall.open? on 6.1: nd2_syscall.open's two kprobes (-L syscall.open)
    expect(r.chain).to.equal('syscall.open = dw_syscall.open!, nd_syscall.open?');
    expect(r.out.map((x) => x[4].pp)).to.deep.equal(['kprobe.function("__x64_compat_sys_open")', 'kprobe.function("__x64_sys_open")']);
    expect(r.out[1][3]).to.deep.equal(['nd2_syscall.open = kprobe.function("__x64_compat_sys_open")?, kprobe.function("__x64_sys_open")?',
      'nd_syscall.open = nd1_syscall.open!, nd2_syscall.open!, tp_syscall.open']);
    expect(r.layers.map(([file, , parent]) => [file, parent])).to.deep.equal([['syscalls.stp', -1], ['nd_syscalls.stp', 0], ['nd_syscalls.stp', 1]]);
    expect(r.out.map((x) => x[0])).to.deep.equal([2, 2]);
  });

  // (every stdlib file: one with no alias checks that none is recorded)
  for (const rel of fs.readdirSync(stdlibDir()).filter((f) => f.endsWith('.stp')).sort()) {
    it(`${rel}: every alias's record is what the slow path derives, and an alias without one cannot have one`, () => {
      let recorded = 0;
      const n = check(rel, (want, got, what) => {
        if (!want) expect(got, `${what} is recorded but the slow path derives something it cannot replay`).to.equal(null);
        else expect(got, `${what}: the record is not the slow path's`).to.deep.equal(want);
        if (got) recorded++;
      });
      if (/^(syscalls|nd_syscalls|vfs|nfs|nfsd)\.stp$/.test(rel)) expect(recorded).to.be.greaterThan(0);
      if (!n) expect(table.layout(path.join(stdlib, rel))).to.equal(null);
    });
  }

  it('a record that disagrees with the slow path fails the comparison above', () => {
    const f = path.join(stdlib, 'syscalls.stp');
    const ast = sp.files.get(f)!;
    const i = ast.aliases.findIndex((d) => renderComponents(d.names[0].components) === 'syscall.read');
    const l = table.layout(f)!;
    const found = shards.record(l.shards[l.of.charCodeAt(i) - 48], i, 0, 'n')!;
    const want = recordExpansion(sp, rec, { decl: ast.aliases[i], nameIndex: 0 }, 'n');
    const good = plain(found.shard, found.rec);
    expect(good).to.deep.equal(want);
    const wrongPoint = JSON.parse(JSON.stringify(good)) as Recording;
    wrongPoint.out[0][4].pp = 'kernel.trace("raw_syscalls:sys_exit")';
    expect(wrongPoint).to.not.deep.equal(want);
    const wrongLayer = JSON.parse(JSON.stringify(good)) as Recording;
    wrongLayer.layers[wrongLayer.layers.length - 1][1]++;
    expect(wrongLayer).to.not.deep.equal(want);
    // the other alias of the pair: a record for syscall.read.return is not syscall.read's
    const j = ast.aliases.findIndex((d) => renderComponents(d.names[0].components) === 'syscall.read.return');
    expect(recordExpansion(sp, rec, { decl: ast.aliases[j], nameIndex: 0 }, 'n')).to.not.deep.equal(want);
  });

  describe('when the records may not describe the run', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-alias-exp-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('an edited or added stdlib file, a file parsed with other options: not used', () => {
      const files = lib.allFiles();
      const stamp = (f: string): string | undefined => lib.fileStamp(f);
      const parsed = (f: string): boolean => lib.parsedAsBuilt(f);
      expect(table.expansionsHold(files, stamp, parsed)).to.equal(true);
      const edited = path.join(stdlib, 'nd_syscalls.stp');
      expect(table.expansionsHold(files, (f) => (f === edited ? '1:1' : stamp(f)), parsed)).to.equal(false);
      expect(table.expansionsHold([...files, path.join(stdlib, 'extra.stp')], stamp, parsed)).to.equal(false);
      expect(table.expansionsHold(files, stamp, (f) => f !== path.join(stdlib, 'syscalls.stp'))).to.equal(false);
      // (a -I directory's files are not the stdlib's: its aliases are the roots' check, holds())
      expect(table.expansionsHold([...files, path.join(dir, 'mine.stp')], stamp, parsed)).to.equal(true);
      const other = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false, compatible: '1.0' }, diag: new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {}), cacheDir: null });
      const consulted = lib.allFiles().filter((f) => !other.parsedAsBuilt(f));
      expect(consulted.length, 'the stdlib has files whose conditions read --compatible').to.be.greaterThan(0);
      expect(lib.allFiles().every((f) => lib.parsedAsBuilt(f))).to.equal(true);
    });

    it('a damaged shard, another version, a record of the wrong shape: not used', () => {
      const good = JSON.parse(fs.readFileSync(path.join(builtExpansionsDir(), 'syscalls.stp-syscall.json'), 'utf8')) as ExpansionShard;
      const key = Object.keys(good.entries).find((k) => good.entries[k].startsWith('{'))!;
      const edit = (f: (r: RecordedExpansion) => void): ExpansionShard => {
        const r = JSON.parse(good.entries[key]) as RecordedExpansion;
        f(r);
        return { ...good, entries: { ...good.entries, [key]: JSON.stringify(r) } };
      };
      const [i, n, c] = key.split(':');
      const at = (s: ExpansionShards): unknown => s.record('t.json', Number(i), Number(n), c as UseContext);
      const write = (text: string): ExpansionShards => {
        fs.writeFileSync(path.join(dir, 't.json'), text);
        return new ExpansionShards(dir);
      };
      expect(at(write(JSON.stringify(good)))).to.not.equal(null);
      expect(at(write(JSON.stringify({ ...good, version: EXPANSIONS_VERSION + 'x' })))).to.equal(null);
      expect(at(write(JSON.stringify(good).slice(0, 1000)))).to.equal(null);
      expect(at(write(JSON.stringify(edit(() => {}))))).to.not.equal(null);
      // (a layer whose parent comes after it; a point's data that is not an object; a string out of the table)
      expect(at(write(JSON.stringify(edit((r) => (r.l[0][2] = 5)))))).to.equal(null);
      expect(at(write(JSON.stringify(edit((r) => (r.x[0][4].data = [] as never)))))).to.equal(null);
      expect(at(write(JSON.stringify(edit((r) => (r.c = good.strings.length)))))).to.equal(null);
      expect(at(write(JSON.stringify({ ...good, entries: { [key]: good.entries[key].slice(0, 20) } })))).to.equal(null);
      expect(at(write(JSON.stringify({ ...good, entries: { [key]: 'nowhere' } })))).to.equal(null);
      // (the elided probes' tables: a look-up naming a string out of the table, a record naming a look-up or name set out of its table)
      expect(at(write(JSON.stringify({ ...good, lookups: [...good.lookups, [good.strings.length, 0]] })))).to.equal(null);
      expect(at(write(JSON.stringify({ ...good, names: [...good.names, [-1]] })))).to.equal(null);
      const elidedKey = Object.keys(good.entries).find((k) => good.entries[k].startsWith('{') && (JSON.parse(good.entries[k]) as RecordedExpansion).x.some((x) => x.length === 6))!;
      const withElision = (f: (e: number[]) => void): ExpansionShard => {
        const r = JSON.parse(good.entries[elidedKey]) as RecordedExpansion;
        for (const x of r.x) if (x.length === 6) f(x[5] as unknown as number[]);
        return { ...good, entries: { [elidedKey]: JSON.stringify(r) } };
      };
      const [ei, en, ec] = elidedKey.split(':');
      const atElided = (sh: ExpansionShards): unknown => sh.record('t.json', Number(ei), Number(en), ec as UseContext);
      expect(atElided(write(JSON.stringify(withElision(() => {}))))).to.not.equal(null);
      expect(atElided(write(JSON.stringify(withElision((e) => (e[1] = good.names.length)))))).to.equal(null);
      expect(atElided(write(JSON.stringify(withElision((e) => (e[2] = [good.lookups.length] as never)))))).to.equal(null);
      expect(atElided(write(JSON.stringify(withElision((e) => (e[0] = -1)))))).to.equal(null);
    });
  });
});
