/**
 * Guru-mode writes to kernel context variables (`$return = v`, `$param = v`, `$p->m = v`).
 * Pass-2 messages are Debian's stap 4.8 with the -dbg vmlinux (scripts/kernel-data/stap-oracle-tree.sh,
 * `REAL_STAP_TREE=... ../shared/tools/real-stap -p2 [-g] -e ...`); the run-time values follow stap's
 * semantics (the setter writes the register or the memory the later reads see).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(args: string[]): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}
const firstError = (s: string) => (/semantic error: [^\n]*/.exec(s) ?? [''])[0];

describe('writes to kernel context variables', function () {
  this.timeout(60000);

  it('need guru mode, as stap 4.8 says at pass 2', () => {
    const r = stap(['-p2', '-e', 'probe kernel.function("vfs_read").return { $return = 1 }']);
    expect(r.status).to.equal(1);
    expect(firstError(r.err)).to.equal("semantic error: write to target variable not permitted; need stap -g: identifier '$return' at <input>:1:44");
    const p = stap(['-p2', '-e', 'probe kernel.function("vfs_read") { $count = 1 }']);
    expect(firstError(p.err)).to.equal("semantic error: write to target variable not permitted; need stap -g: identifier '$count' at <input>:1:37");
  });

  it('take only `=` (stap 4.8: other assignment operators are refused at the operator)', () => {
    const r = stap(['-p2', '-g', '-e', 'probe kernel.function("vfs_read") { $count++ }']);
    expect(r.status).to.equal(1);
    expect(firstError(r.err)).to.equal("semantic error: Only the following assign operator is implemented on target variables:  =: operator '++' at <input>:1:43");
    expect(stap(['-p2', '-g', '-e', 'probe kernel.function("vfs_read") { $count = 1; $file->f_pos = 3 }']).status).to.equal(0);
  });

  it('change what later reads of the hit see: the return register, a parameter, kernel memory', () => {
    const r = stap(['-g', '-e', `probe kernel.function("vfs_read").return { printf("%d ", $return); $return = -1; println($return); exit() }`,
      '-c', 'cat /etc/hostname']);
    expect(r.err).to.equal('');
    expect(r.out.split('\n')[0]).to.match(/^\d+ -1$/);
    const p = stap(['-g', '-e', `probe kernel.function("vfs_read") { $count = 3; $file->f_pos = 5; printf("%d %d\\n", $count, $file->f_pos); exit() }`,
      '-c', 'cat /etc/hostname']);
    expect(p.err).to.equal('');
    expect(p.out.split('\n')[0]).to.equal('3 5');
  });
});
