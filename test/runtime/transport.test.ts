import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Transport } from '../../src/runtime/transport';

describe('runtime/transport: -o FILE, switch_file(), -S size[,N]', () => {
  let dir = '';
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-out-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'latin1');

  it('switch_file: FILE, then FILE.1, FILE.2 after the output already produced', () => {
    const t = new Transport(() => { throw new Error('stdout'); }, path.join(dir, 'out'));
    t.out('a\n'); t.requestSwitch(); t.out('b\n'); t.flush();
    t.out('c\n'); t.requestSwitch(); t.flush();
    t.out('d\n'); t.close();
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['out', 'out.1', 'out.2']);
    expect([read('out'), read('out.1'), read('out.2')]).to.deep.equal(['a\nb\n', 'c\n', 'd\n']);
  });

  it('-S size,N: FILE.0 ..., a new file before the size would be exceeded, at most N files kept', () => {
    const t = new Transport(() => undefined, path.join(dir, 'o'), { sizeMax: 4, maxFiles: 2 });
    for (const s of ['aaa\n', 'bb', 'cc', 'd', 'eeee']) { t.out(s); t.flush(); }
    t.close();
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['o.2', 'o.3']);
    expect([read('o.2'), read('o.3')]).to.deep.equal(['d', 'eeee']);
  });

  it('without -o switch_file does nothing', () => {
    let out = '';
    const t = new Transport((s) => { out += s; });
    t.out('x'); t.requestSwitch(); t.out('y'); t.close();
    expect(out).to.equal('xy');
  });
});
