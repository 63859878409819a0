import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pruneKind, namedKind, readSealed, readSealedInto, writeSealed } from '../src/cachedir';
import { Diagnostics } from '../src/diag';
import { TapsetLibrary } from '../src/elaborate/tapsets';
import nodeFs = require('fs'); // (the module object itself, whose functions a test may wrap)

describe('cache directory: pruning stale entries', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-prune-'));
    fs.chmodSync(tmp, 0o700);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Write `name` in `dir` with mtime `age` seconds in the past. */
  const entry = (dir: string, name: string, age: number): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, 'x', { mode: 0o600 });
    const t = Date.now() / 1000 - age;
    fs.utimesSync(f, t, t);
    return f;
  };

  it('keeps the current entry and the newest others, removes the oldest, leaves other kinds alone', () => {
    for (let i = 0; i < 12; i++) entry(tmp, `index-${i.toString(16).padStart(16, '0')}.json`, 100 + i);
    entry(tmp, 'macros-0123.json', 10_000);
    entry(tmp, 'index-current.json', 100_000); // (the one just written: never removed, whatever its time)
    pruneKind(tmp, namedKind('index-', '.json', 8), 'index-current.json');
    const left = fs.readdirSync(tmp).sort();
    expect(left).to.include('index-current.json');
    expect(left).to.include('macros-0123.json');
    // the 8 most recent of the 12 others (ages 100..107) stay
    expect(left.filter((n) => n.startsWith('index-0'))).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `index-${i.toString(16).padStart(16, '0')}.json`));
  });

  it('never follows or removes a symlink, and skips directories', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-prune-out-'));
    try {
      const target = path.join(outside, 'precious');
      fs.writeFileSync(target, 'keep me');
      const t = Date.now() / 1000 - 1_000_000;
      fs.symlinkSync(target, path.join(tmp, 'index-link.json'));
      fs.lutimesSync(path.join(tmp, 'index-link.json'), t, t);
      fs.mkdirSync(path.join(tmp, 'index-dir.json'));
      for (let i = 0; i < 3; i++) entry(tmp, `index-${i}.json`, 10 + i);
      pruneKind(tmp, namedKind('index-', '.json', 1), null);
      expect(fs.readFileSync(target, 'utf8')).to.equal('keep me');
      expect(fs.lstatSync(path.join(tmp, 'index-link.json')).isSymbolicLink()).to.equal(true);
      expect(fs.statSync(path.join(tmp, 'index-dir.json')).isDirectory()).to.equal(true);
      expect(fs.readdirSync(tmp).filter((n) => /^index-\d\.json$/.test(n))).to.deep.equal(['index-0.json']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("leaves another user's files alone", function () {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) this.skip(); // (only root can give a file away)
    for (let i = 0; i < 3; i++) entry(tmp, `index-${i}.json`, 10 + i);
    fs.chownSync(path.join(tmp, 'index-2.json'), 4321, 4321);
    pruneKind(tmp, namedKind('index-', '.json', 0), null);
    expect(fs.readdirSync(tmp)).to.deep.equal(['index-2.json']);
  });

  it('does nothing while the kind is within its bound (no stat of the entries)', () => {
    for (let i = 0; i < 5; i++) entry(tmp, `u${i}.json`, i);
    const lstat = nodeFs.lstatSync;
    let stats = 0;
    (nodeFs as { lstatSync: unknown }).lstatSync = (...a: Parameters<typeof fs.lstatSync>) => (stats++, lstat(...a));
    try {
      pruneKind(tmp, namedKind('', '.json', 2, 5), null);
    } finally {
      (nodeFs as { lstatSync: unknown }).lstatSync = lstat;
    }
    expect(stats).to.equal(1); // (the directory's own)
    expect(fs.readdirSync(tmp)).to.have.length(5);
  });

  it('a library opened with a new key prunes stale indexes and syntax trees; a warm open reads no directory', () => {
    const lib = path.join(tmp, 'lib');
    const cache = path.join(tmp, 'cache');
    fs.mkdirSync(lib);
    fs.mkdirSync(path.join(cache, 'ast'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(lib, 't.stp'), 'function f() { return 1 }\n');
    // an old cache: 20 indexes, and the syntax trees of 6 older library keys (and of the unkeyed layout)
    for (let i = 0; i < 20; i++) entry(cache, `index-${i.toString(16).padStart(16, '0')}.json`, 1000 + i);
    for (let k = 0; k < 6; k++) for (let i = 0; i < 3; i++) entry(path.join(cache, 'ast'), `${k.toString(16).repeat(8)}-${i.toString(16).repeat(24)}.json`, 1000 + k);
    entry(path.join(cache, 'ast'), `${'f'.repeat(24)}.json`, 5000);
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {});
    const open = (): TapsetLibrary => new TapsetLibrary({ dirs: [lib], parse: { args: [], guru: false }, diag, cacheDir: cache, builtCacheDir: null });
    open();
    const indexes = fs.readdirSync(cache).filter((n) => n.startsWith('index-'));
    expect(indexes).to.have.length(9); // this one and the 8 newest others
    expect(indexes).to.include(`index-${(0).toString(16).padStart(16, '0')}.json`);
    expect(indexes).not.to.include(`index-${(19).toString(16).padStart(16, '0')}.json`);
    const groups = new Set(fs.readdirSync(path.join(cache, 'ast')).map((n) => n.slice(0, 8)));
    expect(groups.size).to.equal(4); // this key's and the 3 newest older keys (0, 1, 2)
    expect([...groups].filter((g) => /^[012]{8}$/.test(g))).to.have.length(3);
    // warm: the index is found, nothing is written, no cache directory is listed (the library's own are)
    const readdir = nodeFs.readdirSync;
    let listed = 0;
    (nodeFs as { readdirSync: unknown }).readdirSync = (...a: Parameters<typeof fs.readdirSync>) => (String(a[0]).startsWith(cache) && listed++, readdir(...a));
    try {
      open();
    } finally {
      (nodeFs as { readdirSync: unknown }).readdirSync = readdir;
    }
    expect(listed).to.equal(0);
  });
});

// src/cli/launch.ts reads a bundle's code cache into the buffer it read the bundle into, from its
// first byte (V8 copies a code cache that does not start at an 8-byte boundary).
describe('cache directory: a sealed entry read into a buffer', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-sealed-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is read from the buffer\'s first byte when it fits, into its own buffer when not', () => {
    const file = path.join(dir, 'e.v8');
    const content = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) & 255));
    writeSealed(file, content);
    const scratch = Buffer.allocUnsafeSlow(8192).fill(1);
    const got = readSealedInto(file, scratch)!;
    expect(got.equals(content)).to.equal(true);
    expect(got.buffer).to.equal(scratch.buffer);
    expect(got.byteOffset).to.equal(scratch.byteOffset);
    const small = Buffer.alloc(100);
    const own = readSealedInto(file, small)!;
    expect(own.equals(content)).to.equal(true);
    expect(own.buffer).to.not.equal(small.buffer);
    expect(readSealed(file)!.equals(content)).to.equal(true);
  });

  it('is null when missing, damaged, cut short or grown', () => {
    const file = path.join(dir, 'e.v8');
    expect(readSealedInto(file)).to.equal(null);
    writeSealed(file, 'some content');
    const whole = fs.readFileSync(file);
    const damaged = Buffer.from(whole);
    damaged[damaged.length - 1] ^= 1;
    for (const bad of [damaged, whole.subarray(0, whole.length - 1), Buffer.concat([whole, Buffer.from('x')]), Buffer.from('not sealed\n')]) {
      fs.writeFileSync(file, bad);
      expect(readSealedInto(file, Buffer.alloc(64))).to.equal(null);
      expect(readSealed(file)).to.equal(null);
    }
  });
});
