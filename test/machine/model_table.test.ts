/**
 * The entry model's per-key table (src/machine/paths/model_table.ts, written by `npm run build`):
 * it gives what the model file read whole gives, key by key, with the functions' kallsyms ids, and
 * is unused when it is not the table of the current model file.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { modelFile, readModelFile } from '../../src/machine/paths/model';
import { builtModelTableFile, readModelTable, writeModelTable, wholeModel } from '../../src/machine/paths/model_table';
import { functionId } from '../../src/kernel/ftrace';

describe('entry model table', () => {
  const mf = modelFile();
  const whole = readModelFile(mf);

  it('is current after the build and holds every key of the model file as read whole', () => {
    const t = readModelTable(builtModelTableFile(), mf);
    expect(t, 'dist/kernel-tables/paths-model.bin is current').to.not.equal(null);
    expect(t!.functions).to.deep.equal(whole.functions);
    expect(t!.recordings).to.deep.equal(whole.recordings);
    expect(t!.keyNames().sort()).to.deep.equal(Object.keys(whole.keys).sort());
    for (const k of t!.keyNames()) expect(t!.keyData(k), k).to.deep.equal(whole.keys[k]);
    expect(t!.keyData('sys:no_such_call')).to.equal(undefined);
    expect(t!.keyData('constructor')).to.equal(undefined);
    expect(wholeModel(whole).keyData('constructor')).to.equal(undefined);
  });

  it('carries each function\'s kallsyms id for the current symbol table', () => {
    const ids = readModelTable(builtModelTableFile(), mf)!.fnIds!;
    expect(ids.length).to.equal(whole.functions.length);
    whole.functions.forEach((f, i) => expect(ids[i], f).to.equal(functionId(f)));
  });

  it('is unused when written for another model file, damaged or missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'model-table-'));
    try {
      const other = path.join(dir, 'entries.json.gz');
      fs.writeFileSync(other, 'not the model');
      const table = path.join(dir, 'paths-model.bin');
      writeModelTable(table, other, { format: 1, recordings: [], functions: ['vfs_read'], keys: { 'sys:read': { v: [['0', 1, '', 1]] } } }, functionId);
      expect(readModelTable(table, other)!.keyData('sys:read')).to.deep.equal({ v: [['0', 1, '', 1]] });
      expect(readModelTable(table, mf)).to.equal(null);
      fs.writeFileSync(other, 'changed, longer than before');
      expect(readModelTable(table, other)).to.equal(null);
      fs.writeFileSync(table, 'garbage\n');
      expect(readModelTable(table, other)).to.equal(null);
      expect(readModelTable(path.join(dir, 'missing.bin'), other)).to.equal(null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
