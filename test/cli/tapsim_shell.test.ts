/**
 * `tapsim shell` as a command: `exit N` ends an interactive session with status N (the lines after
 * it are not run), and `exit` inside eval or `command` ends the shell, as Debian 12's dash does
 * (checked on this host: `printf 'echo a; exit 3; echo b\necho c\n' | dash -i` prints a, status 3;
 * `dash -c 'eval "exit 4"; echo no'` status 4; `dash -c 'command exit 5; echo no'` status 5).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'tapsim_main.js');
const stapCli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
const run = (args: string[], input = '') => spawnSync(process.execPath, [cli, ...args], { input, encoding: 'latin1', timeout: 60000 });

describe('tapsim shell: exit', function () {
  this.timeout(60000);
  it('exit N ends an interactive session with status N', () => {
    const r = run(['shell'], 'echo a; exit 3; echo b\necho c\n');
    expect(r.stdout.replace(/# /g, '')).to.equal('a\n');
    expect(r.status).to.equal(3);
  });
  it('exit in eval and in command ends the shell', () => {
    expect(run(['shell', '-c', 'eval "exit 4"; echo no'])).to.include({ stdout: '', status: 4 });
    expect(run(['shell', '-c', 'command exit 5; echo no'])).to.include({ stdout: '', status: 5 });
  });
  it("the console's shell is a dash with the guest's address space (its maps, VSZ and RSS), interactive too", () => {
    // the recording guest's dash (data/recordings/procs.json.gz: the recorder's sh, smaps: 2840 kB, Rss 1668 kB)
    const cmd = 'ps -o vsz=,rss=,comm= -p $$; readlink /proc/$$/exe; head -1 /proc/$$/maps; grep -c dash /proc/$$/maps';
    const want = /^ +2840 +1668 sh\n\/usr\/bin\/dash\n[0-9a-f]+-[0-9a-f]+ r--p 00000000 08:01 \d+ +\/usr\/bin\/dash\n5\n$/;
    expect(run(['shell', '-c', cmd]).stdout).to.match(want);
    // (interactive, it has moved its break reading the line: its heap is smaller)
    const inter = run(['shell'], `${cmd}\n`).stdout.replace(/# /g, '');
    expect(inter).to.match(/^ +\d+ +1668 sh\n\/usr\/bin\/dash\n/);
    expect(inter.split('\n').slice(1).join('\n').trim()).to.equal(run(['shell', '-c', cmd]).stdout.split('\n').slice(1).join('\n').trim());
  });
});

describe('tapsim shell: start-up', function () {
  this.timeout(60000);
  // Node's zlib and stream libraries cost a start ~10-25 ms at require time: gzipped data files
  // load them when first read (src/kernel/data.ts, userland/etc_tree.ts, kernel/printk.ts), so a
  // shell that reads none of them never loads them.
  it('`shell -c true` loads neither zlib nor the stream library', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-start-'));
    try {
      const probe = path.join(dir, 'probe.js');
      // (written with fs.writeSync: process.stderr itself would load the stream library)
      fs.writeFileSync(probe, 'process.on("exit", () => require("fs").writeSync(2, "\\nLOADED " + process.moduleLoadList.filter((m) => /^NativeModule (zlib|stream)$/.test(m)).join(",") + "\\n"));\n');
      const r = spawnSync(process.execPath, ['-r', probe, cli, 'shell', '-c', 'true'], { encoding: 'latin1', timeout: 60000 });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stderr).to.contain('\nLOADED \n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  /**
   * Run `cmd` in `tapsim shell -c` without the bundles (each module its own file) and list the
   * modules under `dir` (a path under dist/src, '/'-separated) it loaded: `out`, its output.
   */
  const loadedUnder = (dir: string) => (cmd: string): { out: string; modules: string } => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-start-'));
    try {
      const probe = path.join(tmp, 'probe.js');
      const re = dir.split('/').map((p) => `[\\\\/]${p}`).join('') + '[\\\\/]';
      fs.writeFileSync(probe, `process.on("exit", () => require("fs").writeSync(2, "\\nLOADED " + Object.keys(require.cache).filter((f) => /${re}/.test(f)).map((f) => require("path").basename(f)).sort().join(",") + "\\n"));\n`);
      const r = spawnSync(process.execPath, ['-r', probe, cli, 'shell', '-c', cmd], { encoding: 'latin1', timeout: 60000, env: { ...process.env, TAPSIM_NO_BUNDLE: '1' } });
      expect(r.status, r.stderr).to.equal(0);
      return { out: r.stdout, modules: /\nLOADED (.*)\n/.exec(r.stderr)?.[1] ?? '' };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  };
  // The programs under /usr/bin are loaded when first run (src/machine/userland/workload.ts).
  it('a program module is loaded only when one of its programs runs', () => {
    const programs = (cmd: string) => loadedUnder('userland/programs')(cmd).modules;
    // (the services, systemd, sshd, ..., run from boot on)
    expect(programs('true')).to.equal('services.js');
    // cat is in programs/core.js, which loads find (one of its programs); sed is in programs/sed.js, which imports core
    expect(programs('cat /etc/hostname')).to.equal('core.js,find.js,services.js');
    expect(programs('seq 3 | sed s/1/x/')).to.equal('core.js,coreutils.js,find.js,sed.js,services.js');
  });
  // The tracefs (its top instance, ring buffers, tracers and the modules of src/kernel/tracefs/) is
  // made when something first uses it (src/machine/fs/tracing.ts); its mounts are made at boot.
  it('tracefs is made only when something first uses it, its mounts at boot', () => {
    const shell = loadedUnder('kernel/tracefs');
    // the mount points only (debugfs' root lists the tracefs root without making it)
    expect(shell('true').modules).to.equal('debugfs.js,vfs.js');
    expect(shell('ls /sys/kernel/debug')).to.deep.equal({ out: 'kprobes  tracing\n', modules: 'debugfs.js,vfs.js' });
    // a look-up under the root, and the stack tracer's switch, make it
    for (const cmd of ['cat /sys/kernel/tracing/current_tracer', 'cat /sys/kernel/debug/tracing/current_tracer', 'cat /proc/sys/kernel/stack_tracer_enabled']) {
      const r = shell(cmd);
      expect(r.out).to.equal(cmd.includes('current_tracer') ? 'nop\n' : '0\n');
      expect(r.modules).to.contain('tracefs.js');
    }
    // one tracefs root: /sys/kernel/tracing, debugfs' tracing and a second mount are one inode
    // (numbered at boot, as when the tracefs was made at boot)
    const ids = shell('mount -t tracefs nodev /mnt; for d in /sys/kernel/tracing /sys/kernel/debug/tracing /mnt /sys/kernel/debug; do ls -id $d; done').out
      .trim().split('\n').map((l) => Number(l.split(' ')[0]));
    expect(ids[0]).to.be.greaterThan(0);
    expect(ids).to.deep.equal([ids[0], ids[0], ids[0], ids[0] + 1]);
  });
});

// The build makes three bundles (scripts/bundle-cli.ts): the shell with the machine as a plain
// start loads it, the rest of the shell's modules (programs, awk, perf, trace-cmd, the tracefs, ...),
// and the stap pipeline whose machine-side modules come from the shell's (src/cli/launch.ts).
// Each is loaded only when a command needs it; which ones a run compiled is seen through vm.Script.
describe('tapsim and stap: which bundles a start loads', function () {
  this.timeout(60000);
  const bundles = ['stap.bundle.js', 'tapsim-lazy.bundle.js', 'tapsim.bundle.js'];
  let dir: string;
  let probe: string;
  before(function () {
    if (!bundles.every((b) => fs.existsSync(path.join(path.dirname(cli), b)))) this.skip(); // (a build without esbuild)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-bundles-'));
    probe = path.join(dir, 'probe.js');
    fs.writeFileSync(probe, [
      'const vm = require("vm"); const seen = [];',
      'vm.Script = class extends vm.Script { constructor(code, o) { super(code, o); if (o && /\\.bundle\\.js$/.test(o.filename)) seen.push(require("path").basename(o.filename)); } };',
      'process.on("exit", () => require("fs").writeSync(2, "\\nBUNDLES " + seen.sort().join(",") + "\\n"'
        + ' + "NODE_MODULES " + process.moduleLoadList.filter((m) => /^NativeModule (module|vm)$/.test(m)).join(",") + "\\n"));',
    ].join('\n'));
  });
  after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });
  /** `main` (a file, or -e with the code as args[0]) run with args; its output and the bundles it compiled */
  const loads = (main: string, args: string[]) => {
    const r = spawnSync(process.execPath, ['-r', probe, main, ...args], { encoding: 'latin1', timeout: 60000, env: { ...process.env, TAPSIM_NO_BUNDLE: '' } });
    expect(r.status, r.stderr).to.equal(0);
    return { out: r.stdout, loaded: /\nBUNDLES (.*)\n/.exec(r.stderr)?.[1] };
  };
  it('neither command loads Node\'s `module` builtin (its ESM loader and source maps): the loader takes the Module class from its own module record', () => {
    const builtins = (main: string, args: string[]) =>
      /\nNODE_MODULES (.*)\n/.exec(spawnSync(process.execPath, ['-r', probe, main, ...args], { encoding: 'latin1', timeout: 60000, env: { ...process.env, TAPSIM_NO_BUNDLE: '' } }).stderr)?.[1];
    expect(builtins(cli, ['shell', '-c', 'true'])).to.equal('NativeModule vm');
    expect(builtins(stapCli, ['-e', 'probe begin { println("hi"); exit() }'])).to.equal('NativeModule vm');
  });
  it('`shell -c true` loads neither the stap pipeline nor the lazy part of the shell', () => {
    expect(loads(cli, ['shell', '-c', 'true']).loaded).to.equal('tapsim.bundle.js');
  });
  it('a program, awk or the tracefs loads the lazy part, whose modules share the machine', () => {
    expect(loads(cli, ['shell', '-c', 'echo a b | awk \'{ print $2 }\'; ls /sys/kernel/tracing/events/sched | head -n 2; cat /sys/kernel/tracing/current_tracer'])).to.deep.equal({
      out: 'b\nenable\nfilter\nnop\n', loaded: 'tapsim-lazy.bundle.js,tapsim.bundle.js' });
    const r = loads(cli, ['shell', '-c', "stap -e 'probe kernel.trace(\"sched_process_exec\") { println(execname()); exit() }' -c 'cat /etc/hostname'"]);
    expect(r).to.deep.equal({ out: 'debian\ncat\n', loaded: bundles.join(',') });
  });
  // V8 rejects a code cache made under other V8 flags, and the two commands set different ones:
  // each keeps its own cache of the shell's bundle, so switching does not rewrite them
  it('stap and tapsim shell each keep their code cache of the shell\'s bundle', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-flags-'));
    try {
      const env = { ...process.env, TAPSIM_NO_BUNDLE: '', TAPSIM_CACHE_DIR: cache };
      const both = () => {
        expect(spawnSync(process.execPath, [cli, 'shell', '-c', 'true'], { env }).status).to.equal(0);
        expect(spawnSync(process.execPath, [stapCli, '-e', 'probe kernel.function("vfs_read") { exit() }'], { env }).status).to.equal(0);
        return fs.readdirSync(cache).filter((f) => f.endsWith('.v8')).sort().map((f) => `${f} ${fs.statSync(path.join(cache, f)).mtimeMs}`);
      };
      const first = both();
      expect(first.filter((f) => f.startsWith('tapsim-bundle-'))).to.have.length(2);
      expect(both()).to.deep.equal(first);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
  // the pipeline's REPL imports the tty driver (to stop a run with SIGINT), a module of the lazy part
  it('a module of the lazy part asked for by the pipeline comes from the lazy bundle', () => {
    const launch = path.join(path.dirname(cli), 'launch.js');
    const code = `const l = require(${JSON.stringify(launch)}); process.stdout.write(typeof l.shellModule("src/machine/drivers/tty.js").signalFromOutside);`;
    expect(loads('-e', [code])).to.deep.equal({ out: 'function', loaded: 'tapsim-lazy.bundle.js,tapsim.bundle.js' });
  });
  it('a begin-only stap script does not load the machine', () => {
    expect(loads(stapCli, ['-e', 'probe begin { println("hi"); exit() }'])).to.deep.equal({ out: 'hi\n', loaded: 'stap.bundle.js' });
  });
  // one machine for both bundles: a probe placed by the pipeline fires in the machine the
  // shell's bundle runs (a second copy of the kernel's modules would never see the call)
  it('a kernel probe, from stap and from stap inside the shell, loads the three and fires', () => {
    const script = 'probe kernel.function("vfs_read") { println(execname()); exit() }';
    expect(loads(stapCli, ['-e', script, '-c', 'cat /etc/hostname'])).to.deep.equal({ out: 'cat\n', loaded: bundles.join(',') });
    expect(loads(cli, ['shell', '-c', `stap -e '${script}' -c 'cat /etc/hostname'`])).to.deep.equal({ out: 'debian\ncat\n', loaded: bundles.join(',') });
  });
});
