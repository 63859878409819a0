/**
 * The command's bounds on what a user passes (issue 18): option values rejected with stap's
 * messages, the privilege options, limits a module could not be compiled or started with,
 * loops and print statements bounded, SIGHUP ending a run as SIGINT does, and strings as the
 * bytes stap sees.  Expected texts come from Debian's SystemTap 4.8 (real-stap) where it can
 * tell: option messages, `-x`'s (pid_t) strtoul, the byte column of a caret; where it cannot
 * (passes 4 and 5), from the runtime sources it installs (/usr/share/systemtap/runtime:
 * vsprintf.c, print.c, transport.h STP_BUFFER_SIZE 8192) and the C that `real-stap -p3` prints.
 */
import { expect } from 'chai';
import { spawn, spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const CLI = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'latin1', timeout: 90000 });
}
const HINT = "Try '--help' for more information. [man stap]\nA message like [man foo] means for more info, run % man foo\n";

describe('cli: option values and privilege options (real-stap messages)', function () {
  this.timeout(120000);

  it('--privilege: known levels, once, not with -g', () => {
    const cases: [string[], string][] = [
      [['--privilege=foo'], "Invalid argument 'foo' for --privilege.\n"],
      [['--unprivileged', '--privilege=stapsys'], 'Privilege level may be set only once.\n'],
      [['--privilege=stapusr', '--privilege=stapdev'], 'Privilege level may be set only once.\n'],
      [['--unprivileged', '-g'], `You can't specify -g and --privilege=stapusr together.\n${HINT}`],
      [['--privilege=stapsys', '-g'], `You can't specify -g and --privilege=stapsys together.\n${HINT}`],
    ];
    for (const [args, err] of cases) {
      const r = stap([...args, '-p1', '-e', 'probe begin {}']);
      expect(r.stderr, args.join(' ')).to.equal(err);
      expect(r.status).to.equal(1);
    }
    for (const args of [['--privilege=stapusr', '--unprivileged'], ['--privilege=stapdev', '-g']]) {
      expect(stap([...args, '-p1', '-e', 'probe begin {}']).status, args.join(' ')).to.equal(0);
    }
  });

  it('--runtime: kernel or bpf', () => {
    let r = stap(['--runtime', 'foo', '-e', 'probe begin {}']);
    expect(r.stderr).to.equal('ERROR: foo is an invalid argument for --runtime\n');
    expect(r.status).to.equal(1);
    r = stap(['--runtime=', '-e', 'probe begin {}']);
    expect(r.stderr).to.equal('ERROR:  is an invalid argument for --runtime\n');
    r = stap(['--runtime=dyninst', '-e', 'probe begin {}']);
    expect(r.stderr).to.equal('ERROR: --runtime=dyninst unavailable; this build lacks DYNINST feature\n');
  });

  it('-x PID is (pid_t) strtoul(PID): 32-bit wrap-around, the whole argument a number', () => {
    const target = (x: string) => stap(['-x', x, '-e', 'probe begin { println(target()); exit() }']);
    expect(target('9223372036854775808').stdout).to.equal('0\n');
    expect(target('4294967297').stdout).to.equal('1\n');
    expect(target('99999999999').stdout).to.equal('1215752191\n');
    expect(target(' +12').stdout).to.equal('12\n');
    for (const bad of ['12a', '0x10']) {
      const r = target(bad);
      expect(r.stderr, bad).to.equal('Invalid target process ID number.\n');
      expect(r.status).to.equal(1);
    }
  });

  it('-D limits that are not integer constants fail pass 4 (stap pastes them into C); -p3 shows the translation', () => {
    let r = stap(['-D', 'MAXACTION=abc', '-e', 'probe begin { exit() }']);
    expect(r.stderr).to.equal("ERROR: -D MAXACTION=abc: not an integer constant (the module's C code would not compile)\n" +
      'Pass 4: compilation failed.  [man error::pass4]\n');
    expect(r.status).to.equal(1);
    expect(stap(['-p3', '-D', 'MAXACTION=abc', '-e', 'probe begin { exit() }']).status).to.equal(0);
    expect(stap(['-D', 'MAXACTION=0x100', '-D', 'MAXSTRINGLEN=100UL', '-e', 'probe begin { println(1); exit() }']).stdout).to.equal('1\n');
  });

  it('limits too large for the runtime: the module fails to start as stap does when allocation fails', () => {
    for (const d of ['MAXSTRINGLEN=100000000000', 'MAXMAPENTRIES=100000000']) {
      const r = stap(['-D', d, '-e', 'global a probe begin { a[1] = 1; println(a[1]); exit() }']);
      expect(r.stdout, d).to.equal('');
      expect(r.stderr, d).to.match(/^ERROR: Couldn't insert module 'stap_[0-9a-f]+_\d+': Cannot allocate memory\n/);
      expect(r.status).to.equal(1);
    }
    // an array-less script allocates no entries
    expect(stap(['-D', 'MAXMAPENTRIES=100000000', '-e', 'probe begin { println(1); exit() }']).stdout).to.equal('1\n');
  });
});

describe('cli: bounded handlers and output', function () {
  this.timeout(120000);

  it('an empty infinite loop: elided as stap 4.8 elides it (-p3 has no loop), counted against MAXACTION with -u', () => {
    expect(stap(['-e', 'probe begin { while (1) {} println("after"); exit() }']).stdout).to.equal('after\n');
    const r = stap(['-u', '-e', 'probe begin { while (1) {} }']);
    expect(r.stderr).to.contain('ERROR: MAXACTION exceeded near keyword at <input>:1:15 in probe begin\n');
    expect(r.status).to.equal(1);
    const busy = stap(['-e', 'global i probe begin { while (1) { i++ } }']);
    expect(busy.stderr).to.contain('ERROR: MAXACTION exceeded near keyword at <input>:1:24 in probe begin\n');
  });

  it('printf and sprintf widths and precisions clamped as the compiled runtime clamps them', () => {
    const r = stap(['-e', `probe begin {
      println(strlen(sprintf("%2147483647d", 1)))        # width clamped to the room left: 511 spaces kept
      s = sprintf("%.999999999d", 1); println(strlen(s), " ", substr(s, 505, 6))
      println(sprintf("%*d|", 9223372036854775807, 5))  # (int) of the value: -1, clamped to 0
      println(sprintf("%*d|", 4294967301, 5))           # (int): 5
      println(strlen(sprintf("%*b", 99999999999, 65)))  # NUL padding first: an empty C string
      printf("%100000000d", 1); println("")             # one print buffer: 8192 bytes
      exit()
    }`]);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 5)).to.deep.equal(['511', '511 000000', '5|', '    5|', '0']);
    expect(lines[5]).to.equal(' '.repeat(8191) + '1');
    expect(r.status).to.equal(0);
  });

  it('SIGHUP ends the session as SIGINT does: end probes run, -o file complete, status 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-hup-'));
    const out = path.join(dir, 'out.txt');
    const child = spawn(process.execPath, [CLI, '-o', out, '-e',
      'global n probe begin { println("started") } probe timer.ms(10) { n++ } probe end { printf("end %d\\n", n > 0) }']);
    let status: number | null = null;
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (fs.existsSync(out) && fs.readFileSync(out, 'latin1').includes('started')) {
          clearInterval(poll);
          setTimeout(() => child.kill('SIGHUP'), 200);
        }
      }, 50);
      child.on('exit', (code) => {
        clearInterval(poll);
        status = code;
        resolve();
      });
    });
    expect(status).to.equal(0);
    expect(fs.readFileSync(out, 'latin1')).to.equal('started\nend 1\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('cli: strings are the bytes stap sees', function () {
  this.timeout(120000);

  it('-e text and arguments are UTF-8 bytes: println("é€") prints c3 a9 e2 82 ac, strlen 5', () => {
    const r = spawnSync(process.execPath, [CLI, '-e', 'probe begin { println("é€", strlen("é€")); println(@1, strlen(@1)); exit() }', 'ü'], { timeout: 90000 });
    expect([...r.stdout]).to.deep.equal([0xc3, 0xa9, 0xe2, 0x82, 0xac, 0x35, 0x0a, 0xc3, 0xbc, 0x32, 0x0a]);
  });

  it('a caret under a token after non-ASCII text is placed by bytes (real-stap: column 36)', () => {
    const r = spawnSync(process.execPath, [CLI, '-p2', '-e', 'probe begin { x = "é€"; println(x + 1) }'], { timeout: 90000 });
    const err = r.stderr.toString('latin1');
    const first = err.split('\n').slice(0, 3);
    expect(first[0]).to.equal("semantic error: type mismatch (long): identifier 'x' at <input>:1:36");
    expect(first[2]).to.equal(' '.repeat(8 + 8 + 35) + '^');
  });
});
