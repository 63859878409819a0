/**
 * The entry model's per-key table (src/machine/paths/model_table.ts, written by `npm run build`):
 * it gives what the model file read whole gives, key by key, with the functions' kallsyms ids, and
 * is unused when it is not the table of the current model file.  Its programs (each variant's tree
 * compiled by the build) are, once relocated to this process's hook and tracepoint numbers, the
 * programs this process compiles from the trees' text: a start that runs them runs what it would
 * have compiled (expected values: the compiler's own output, paths/compile.ts, whose lazy chunks
 * test/machine/compile.test.ts checks against the same eager compile).
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { modelFile, readModelFile, modelSummariser, compileTree, modelFnId, modelSymbolId } from '../../src/machine/paths/model';
import { compilerStamp, operandPositions, relocate, setChunkChars } from '../../src/machine/paths/compile';
import { installKernelSemantics } from '../../src/machine/machine';
import { builtModelTableFile, readModelTable, writeModelTable, wholeModel, type KeyData, type VariantData } from '../../src/machine/paths/model_table';
import { functionId, isTraceable } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';

describe('entry model table', () => {
  const mf = modelFile();
  const whole = readModelFile(mf);
  const S = modelSummariser();
  /** a key's data without the tree readers */
  /** a key's variants made whole (the loader makes each when asked for) */
  const list = (d: KeyData): VariantData[] => Array.from({ length: d.n }, (_, i) => d.at(i));
  const flat = (d: KeyData | undefined): unknown => d && {
    rule: d.rule,
    v: list(d).map(({ count, feat, recs, summary }, i) => {
      // what choosing reads by index is the variant's own
      expect([d.count(i), d.feat(i), d.summary(i)]).to.deep.equal([count, feat, summary]);
      return { count, feat, recs, summary };
    }),
  };

  /** `body` with a model file of content `model` and a table path in a new temporary directory (removed after) */
  const inTableDir = (model: string, body: (other: string, table: string) => void): void => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'model-table-'));
    try {
      const other = path.join(dir, 'entries.json.gz');
      fs.writeFileSync(other, model);
      body(other, path.join(dir, 'paths-model.bin'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('is current after the build and holds every key of the model file as read whole', () => {
    const t = readModelTable(builtModelTableFile(), mf, S);
    expect(t, 'dist/kernel-tables/paths-model.bin is current').to.not.equal(null);
    expect(t!.functions).to.deep.equal(whole.functions);
    expect(t!.recordings).to.deep.equal(whole.recordings);
    expect(t!.keyNames().sort()).to.deep.equal(Object.keys(whole.keys).sort());
    const w = wholeModel(whole, S);
    for (const k of t!.keyNames()) expect(flat(t!.keyData(k)), k).to.deep.equal(flat(w.keyData(k)));
    for (const k of t!.keyNames()) expect(list(t!.keyData(k)!).map((v) => v.shape()), k).to.deep.equal(whole.keys[k].v.map(([shape]) => shape));
    expect(t!.keyData('sys:no_such_call')).to.equal(undefined);
    expect(t!.keyData('constructor')).to.equal(undefined);
    expect(w.keyData('constructor')).to.equal(undefined);
  });

  it('carries each function\'s kallsyms id for the current symbol table', () => {
    const ids = readModelTable(builtModelTableFile(), mf, S)!.fnIds!;
    expect(ids.length).to.equal(whole.functions.length);
    // (the traceable symbol of a name whose first one is not: modelSymbolId)
    whole.functions.forEach((f, i) => expect(ids[i], f).to.equal(modelSymbolId(f)));
    expect(symbolName(ids[whole.functions.indexOf('io_serial_out')])).to.equal('io_serial_out');
    // early_printk.c's io_serial_out (the first of the name) has no mcount site; 8250_port.c's has
    expect(ids[whole.functions.indexOf('io_serial_out')]).to.not.equal(functionId('io_serial_out'));
    expect(isTraceable(ids[whole.functions.indexOf('io_serial_out')])).to.equal(true);
  });

  it('holds every variant\'s program as this process compiles it from the tree, and its syscall function', () => {
    installKernelSemantics();
    const t = readModelTable(builtModelTableFile(), mf, S)!;
    expect(t.progs?.stamp, 'programs compiled with the current compiler').to.equal(compilerStamp());
    const maps = {};
    const old = setChunkChars(Infinity);
    let n = 0;
    try {
      for (const k of t.keyNames()) {
        for (const v of list(t.keyData(k)!)) {
          const want = compileTree(k, v.shape(), modelFnId, false);
          expect(v.inner, k).to.equal(want.inner);
          const p = v.program!();
          expect([...p.at], `${k} variant ${n}: operand positions`).to.deep.equal([...operandPositions(p.code)]);
          expect([...relocate(p.code, p.at, t.progs!.hooks, t.progs!.tps, maps)], `${k} variant ${n}`).to.deep.equal([...want.code.code]);
          n++;
        }
      }
    } finally {
      setChunkChars(old);
    }
    expect(n).to.equal(Object.values(whole.keys).reduce((a, d) => a + d.v.length, 0));
  });

  it('reads the function names only when they are first asked for (a start needs their ids, not their names)', () => {
    inTableDir('a model', (other, table) => {
      const names = ['vfs_read', 'ksys_read'];
      writeModelTable(table, other, { format: 1, recordings: [], functions: names, keys: { 'sys:read': { rule: '+', v: [['0 (1)', 2, 'x|y', 1]] } } }, functionId, S);
      // the names' JSON, overwritten in place after the table was written: what a reader that never
      // asks for the names does not notice
      const bytes = fs.readFileSync(table);
      const at = bytes.indexOf(JSON.stringify(names), 0, 'latin1');
      expect(at).to.be.greaterThan(0);
      bytes.fill('#'.charCodeAt(0), at, at + JSON.stringify(names).length);
      fs.writeFileSync(table, bytes);
      const t = readModelTable(table, other, S)!;
      expect(Array.from(t.fnIds!)).to.deep.equal(names.map(functionId));
      expect(flat(t.keyData('sys:read'))).to.deep.equal({ rule: '+', v: [{ count: 2, feat: 'x|y', recs: 1, summary: '---|-|-|-|-' }] });
      expect(() => t.functions).to.throw(SyntaxError);
      // and a table left as written gives them
      writeModelTable(table, other, { format: 1, recordings: [], functions: names, keys: {} }, functionId, S);
      expect(readModelTable(table, other, S)!.functions).to.deep.equal(names);
    });
  });

  it('is unused when written for another model file, damaged or missing', () => {
    inTableDir('not the model', (other, table) => {
      writeModelTable(table, other, { format: 1, recordings: [], functions: ['vfs_read'], keys: { 'sys:read': { rule: '+', v: [['0 ^', 1, 'x|y', 3]] } } }, functionId, S);
      const d = readModelTable(table, other, S)!.keyData('sys:read')!;
      expect(flat(d)).to.deep.equal({ rule: '+', v: [{ count: 1, feat: 'x|y', recs: 3, summary: 'b--|-|-|-|-' }] }); // sys:read's tree features (paths/model.ts TREE_FEATURES), none in this tree
      expect(d.at(0).shape()).to.equal('0 ^');
      expect(readModelTable(table, mf, S)).to.equal(null);
      // a table summarised otherwise (the summariser changed since the build)
      expect(readModelTable(table, other, { ...S, stamp: 'other' })).to.equal(null);
      fs.writeFileSync(other, 'changed, longer than before');
      expect(readModelTable(table, other, S)).to.equal(null);
      fs.writeFileSync(table, 'garbage\n');
      expect(readModelTable(table, other, S)).to.equal(null);
      expect(readModelTable(path.join(path.dirname(table), 'missing.bin'), other, S)).to.equal(null);
    });
  });
});
