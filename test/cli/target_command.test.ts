/**
 * `stap -c CMD`: stapio's start_cmd splits a command without shell syntax into words and the
 * forked stapio child execs it itself, so the execve is made by the target() process with the
 * file name as given (SystemTap's testsuite base/execve prints "/bin/true" for
 * `stap -c /bin/true` with `if (pid() == target()) println(filename)`); a command with shell
 * syntax runs as `/bin/sh -c CMD`, whose own child execs the program.  On Debian 12 /bin is a
 * link to usr/bin.
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[]): { out: string; err: string; code: number } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 });
  return { out: r.stdout, err: r.stderr, code: r.status ?? -1 };
}

const SCRIPT = 'probe syscall.execve { printf("%s %d %s\\n", execname(), pid() == target(), filename) } '
  + 'probe syscall.execve.return { if (pid() == target()) printf("ret %s\\n", execname()) }';

describe('stap -c: the target command', function () {
  this.timeout(120000);

  it('execs a program named by a path through a link (/bin/true) itself, as target(), with the name as given', () => {
    const r = stap(['-c', '/bin/true', '-e', SCRIPT]);
    expect(r.err).to.equal('');
    expect(r.out).to.equal('stapio 1 "/bin/true"\nret true\n');
    expect(r.code).to.equal(0);
  });

  it('finds a bare name on the PATH (/usr/bin before /bin)', () => {
    const r = stap(['-c', 'true', '-e', SCRIPT]);
    expect(r.out).to.equal('stapio 1 "/usr/bin/true"\nret true\n');
  });

  it('runs a command with shell syntax through /bin/sh -c, whose child execs the program', () => {
    const r = stap(['-c', '/bin/true; /bin/true', '-e', SCRIPT]);
    expect(r.out.split('\n')[0]).to.equal('stapio 1 "/bin/sh"');
    expect(r.out).to.contain('sh 0 "/bin/true"\n');
  });
});
