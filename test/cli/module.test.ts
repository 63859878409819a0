/**
 * The module a script becomes, as a user sees it: -p4 prints the path of the module stap built,
 * `<cache>/<hh>/stap_<hash>_<n>.ko`, or with `-m NAME` the copy left in the current directory,
 * `NAME.ko` (stap(1) on -m); the module's name is what module_name() returns and where procfs
 * files go (/proc/systemtap/NAME/).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'latin1', timeout: 90000, env });
}

describe('stap: the module file (-p4, -m)', function () {
  this.timeout(120000);
  let dir: string;
  let cache: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-p4-'));
    cache = path.join(dir, 'cache-dir');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('-p4 prints the cached module path stap_<hash>_<n>.ko and writes the file', () => {
    const env = { ...process.env, TAPSIM_CACHE_DIR: cache };
    const r = stap(['-p4', '-e', 'probe begin { println(module_name()); exit() }'], dir, env);
    expect(r.status, r.stderr).to.equal(0);
    const m = /^(.*)\/cache\/([0-9a-f]{2})\/(stap_([0-9a-f]{32})_(\d+))\.ko\n$/.exec(r.stdout);
    expect(m, r.stdout).to.not.equal(null);
    expect(m![1]).to.equal(cache);
    expect(m![2]).to.equal(m![4].slice(0, 2));
    expect(fs.existsSync(r.stdout.trim())).to.equal(true);
    // the same script and options name the same module; the run's module_name() is that name
    expect(stap(['-p4', '-e', 'probe begin { println(module_name()); exit() }'], dir, env).stdout).to.equal(r.stdout);
    const run = stap(['-e', 'probe begin { println(module_name()); exit() }'], dir, env);
    expect(run.stdout).to.equal(m![3] + '\n');
    // another script or build option, another module
    expect(stap(['-p4', '-e', 'probe begin { println(2); exit() }'], dir, env).stdout).to.not.equal(r.stdout);
    expect(stap(['-p4', '-DMAXACTION=5', '-e', 'probe begin { println(module_name()); exit() }'], dir, env).stdout).to.not.equal(r.stdout);
  });

  it('-m NAME: the module is NAME (module_name(), /proc/systemtap/NAME) and NAME.ko is left in the current directory', () => {
    const r = stap(['-p4', '-m', 'mymod', '-e', 'probe begin { exit() }'], dir);
    expect(r.stdout).to.equal('mymod.ko\n');
    expect(fs.existsSync(path.join(dir, 'mymod.ko'))).to.equal(true);
    const run = stap(['-m', 'other', '-c', 'cat /proc/systemtap/other/hello',
      '-e', 'probe procfs("hello").read { $value = module_name() . "\\n" }'], dir);
    expect(run.stdout).to.equal('other\n');
    expect(run.status, run.stderr).to.equal(0);
    expect(fs.existsSync(path.join(dir, 'other.ko'))).to.equal(true);
  });
});

