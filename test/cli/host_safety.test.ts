/**
 * Nothing a user feeds `stap` runs on the host (issue 18's reproducers, each run through the
 * real command): hostile file and directory names, names that are JavaScript or
 * Object.prototype words, embedded C in guru mode, and the cache: refused when others could
 * plant entries, damaged entries discarded, a planted well-formed syntax tree harmless.
 */
import { expect } from 'chai';
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { seal, unseal } from '../../src/cachedir';

const CLI = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[], opts: { cwd?: string; cache?: string; env?: Record<string, string> } = {}): SpawnSyncReturns<string> {
  const env = { ...process.env, ...opts.env };
  if (opts.cache !== undefined) env.TAPSIM_CACHE_DIR = opts.cache;
  return spawnSync(process.execPath, [CLI, ...args], { cwd: opts.cwd, encoding: 'latin1', timeout: 90000, env });
}

describe('cli: user input never runs on the host', function () {
  this.timeout(180000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-host-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an -I tapset whose file name holds JavaScript: the name is data', () => {
    // A new .stpm file changes every tapset's parse (library macros are global): the directory
    // and its file keep one path and time from run to run, so only a first run parses the library.
    const inc = path.join(__dirname, 'host_safety_stpm');
    const stpm = path.join(inc, "t\nprocess.mainModule.require('fs').writeFileSync('X','y');0?R.stpm");
    fs.mkdirSync(inc, { recursive: true });
    fs.writeFileSync(stpm, '@define hi %( println("hi") %)\n');
    fs.utimesSync(stpm, 1700000000, 1700000000);
    const r = stap(['-I', inc, '-e', 'probe begin { @hi; exit() }'], { cwd: dir });
    expect(r.stdout).to.equal('hi\n');
    expect(r.status).to.equal(0);
    expect(fs.existsSync(path.join(dir, 'X'))).to.equal(false);
  });

  it('an -I directory whose name holds JavaScript: the name is data', () => {
    const inc = path.join(dir, 'DIR\nprocess.exit(9);0?R');
    fs.mkdirSync(inc);
    fs.writeFileSync(path.join(inc, 'a.stp'), 'function ff() { return 42 }\n');
    const r = stap(['-I', inc, '-e', 'probe begin { println(ff()); error("x") }'], { cwd: dir });
    expect(r.stdout).to.equal('42\n');
    expect(r.stderr).to.contain('ERROR: x near identifier');
    expect(r.status).to.equal(1);
  });

  it('a script path with a newline', () => {
    fs.mkdirSync(path.join(dir, 'a\nb*'));
    const file = path.join(dir, 'a\nb*', '\u2028.stp'); // (a `*/` across the path's parts)
    fs.writeFileSync(file, 'probe begin { println("ok"); exit() }\n');
    const r = stap([file]);
    expect(r.stdout).to.equal('ok\n');
    expect(r.status).to.equal(0);
  });

  it('embedded C in guru mode is refused at translation, never run (function constructor)', () => {
    const r = stap(['-g', '-e', 'function constructor:long () %{ %} probe begin { println(constructor()); exit() }']);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.equal(
      "semantic error: embedded-C function body is not executed by tapsim (no C code runs): identifier 'constructor' at <input>:1:10\n" +
      '        source: function constructor:long () %{ %} probe begin { println(constructor()); exit() }\n' +
      '                         ^\n\nPass 3: translation failed.  [man error::pass3]\n');
    expect(r.status).to.equal(1);
  });

  it('@const of an Object.prototype name is an unknown constant', () => {
    for (const name of ['constructor', 'valueOf', '__proto__']) {
      const r = stap(['-g', '-e', `probe begin { println(@const("${name}")); exit() }`]);
      expect(r.stderr).to.contain(`semantic error: @const("${name}"): constant not known to this kernel`);
      expect(r.stderr).to.not.contain('    at ');
      expect(r.status).to.equal(1);
    }
  });
});

describe('cli: a cache nobody else can plant', function () {
  this.timeout(180000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-cache-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const SCRIPT = 'global n probe begin { n = 3; printf("%s %d\\n", execname(), n * 2); exit() }';

  it('creates the default directory 0700 under $XDG_CACHE_HOME', () => {
    const env: Record<string, string> = { XDG_CACHE_HOME: path.join(dir, 'xdg') };
    const r = spawnSync(process.execPath, [CLI, '-e', SCRIPT], { encoding: 'latin1', env: { ...withoutCacheVar(), ...env }, timeout: 90000 });
    expect(r.stdout).to.equal('stapio 6\n');
    expect(fs.statSync(path.join(dir, 'xdg', 'tapsim')).mode & 0o777).to.equal(0o700);
  });

  it('refuses a directory others may write, with one warning, and runs without it', () => {
    const cache = path.join(dir, 'shared');
    fs.mkdirSync(cache);
    fs.chmodSync(cache, 0o777);
    const r = stap(['-e', SCRIPT], { cache });
    expect(r.stdout).to.equal('stapio 6\n');
    expect(r.stderr).to.equal(`WARNING: cache directory '${cache}' may be written by other users: running without a cache\n`);
    expect(r.status).to.equal(0);
    expect(fs.readdirSync(cache)).to.deep.equal([]);
  });

  it('refuses a directory owned by another user', function () {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) this.skip(); // (only root can give a directory away)
    const cache = path.join(dir, 'theirs');
    fs.mkdirSync(cache, { mode: 0o700 });
    fs.chownSync(cache, 65534, 65534);
    const r = stap(['-e', SCRIPT], { cache });
    expect(r.stdout).to.equal('stapio 6\n');
    expect(r.stderr).to.equal(`WARNING: cache directory '${cache}' is owned by uid 65534, not by you (uid 0): running without a cache\n`);
    expect(fs.readdirSync(cache)).to.deep.equal([]);
  });

  it('discards damaged entries (syntax trees, index, V8 code cache) and gives the same output', () => {
    const cache = path.join(dir, 'c');
    expect(stap(['-e', SCRIPT], { cache }).stdout).to.equal('stapio 6\n');
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of fs.readdirSync(d)) {
        const p = path.join(d, f);
        if (fs.statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(cache);
    expect(files.some((f) => f.endsWith('.v8'))).to.equal(true);
    expect(files.some((f) => f.includes(`${path.sep}user${path.sep}`))).to.equal(true);
    for (const f of files) {
      const b = fs.readFileSync(f);
      for (let i = Math.floor(b.length / 3); i < b.length; i += Math.max(1, Math.floor(b.length / 7))) b[i] ^= 0x20;
      fs.writeFileSync(f, b);
    }
    const r = stap(['-e', SCRIPT], { cache });
    expect(r.stdout).to.equal('stapio 6\n');
    expect(r.stderr).to.equal('');
    expect(r.status).to.equal(0);
  });

  it('a planted, well-formed syntax tree only ever becomes data', () => {
    const cache = path.join(dir, 'c');
    const script = 'global n probe begin { n = 21; println(n * 2); exit() }';
    expect(stap(['-e', script], { cache }).stdout).to.equal('42\n');
    const userDir = path.join(cache, 'user');
    const [entry] = fs.readdirSync(userDir);
    const file = path.join(userDir, entry);
    const text = unseal(fs.readFileSync(file))!.toString('utf8');
    // names and literals that are JavaScript, numbers that are code
    const evil = "x; require('fs').writeFileSync('PLANTED', 'y'); //\n";
    const planted = text
      .replace(/"name":"n"/g, `"name":${JSON.stringify(evil)}`)
      .replace(/"value":21/, `"value":${JSON.stringify("process.exit(7)")}`);
    expect(planted).to.not.equal(text);
    fs.writeFileSync(file, seal(planted));
    const r = stap(['-e', script], { cache, cwd: dir });
    expect(fs.existsSync(path.join(dir, 'PLANTED'))).to.equal(false);
    expect(r.status).to.be.oneOf([0, 1]);
    expect(r.stderr).to.not.contain('    at ');
  });
});

function withoutCacheVar(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (k !== 'TAPSIM_CACHE_DIR' && v !== undefined) env[k] = v;
  return env;
}
