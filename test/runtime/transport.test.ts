import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Transport } from '../../src/runtime/transport';
import { strftimeLocal } from '../../src/runtime/strftime';

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

  it('-o FILE with strftime conversions: expanded at each open with the session clock', () => {
    let now = 86400 * 365;
    const t = new Transport(() => undefined, path.join(dir, 'run-%s-%%'), undefined, () => now);
    expect(t.open()).to.equal(undefined);
    t.out('a'); t.flush();
    now += 5; t.requestSwitch(); t.flush();
    t.out('b'); t.close();
    const first = `run-${86400 * 365}-%`;
    expect(t.openedFiles().map((f) => path.basename(f))).to.deep.equal([first, `run-${86400 * 365 + 5}-%.1`]);
    expect(read(first)).to.equal('a');
  });

  it('-o FILE that cannot be created: stapio\'s message, nothing opened', () => {
    const t = new Transport(() => undefined, path.join(dir, 'missing', 'x'));
    expect(t.open()).to.equal(`ERROR: Couldn't open output file ${path.join(dir, 'missing', 'x')}: No such file or directory`);
    expect(t.openedFiles()).to.deep.equal([]);
  });

  it('strftime: fields of the local time, composites, %% and unknown conversions', () => {
    const sec = Date.UTC(2024, 1, 29, 13, 4, 5) / 1000;
    const d = new Date(sec * 1000);
    const p2 = (n: number) => String(n).padStart(2, '0');
    expect(strftimeLocal('%Y-%m-%d %H:%M:%S', sec)).to.equal(`${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`);
    expect(strftimeLocal('%F %T', sec)).to.equal(strftimeLocal('%Y-%m-%d %H:%M:%S', sec));
    expect(strftimeLocal('%s|%%|%q|plain', sec)).to.equal(`${sec}|%|%q|plain`);
    expect(strftimeLocal('%j', Date.UTC(2023, 11, 31, 12) / 1000)).to.equal('365');
  });
});
