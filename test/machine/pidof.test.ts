/**
 * pidof (sysvinit-utils' killall5 as pidof, programs/pidof.ts). Expected behaviour from this Debian 12
 * host's pidof 3.06 on the same command lines: the newest process first, -s the first only, -d the
 * separator, -o %PPID leaves out pidof's parent, -q only the status, 1 when nothing (or no name) matches.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

describe('machine: pidof', () => {
  const m = new Machine({ seed: 1 });
  it('lists the pids of a program newest first, with -s, -d, -o %PPID, -q and its exit statuses', () => {
    const out = m.run('sleep 100 & sleep 100 & pidof sleep; pidof -s sleep; pidof -o %PPID sh; pidof -d, sleep; pidof /usr/bin/sleep; '
      + 'pidof nonexist; echo rc=$?; pidof -q sleep; echo rc=$?; pidof; echo rc=$?').out.split('\n');
    const [a, b] = out[0].split(' ').map(Number);
    expect(b).to.be.above(0);
    expect(a).to.be.above(b);
    expect(out.slice(1)).to.deep.equal([`${a}`, `${a},${b}`, `${a} ${b}`, 'rc=1', 'rc=0', 'rc=1', '']);
  });
  it('matches argv[0], the executable\'s base name (systemd runs as /sbin/init) and a kernel thread\'s comm', () => {
    expect(m.run('pidof systemd; pidof kthreadd; pidof nginx | wc -w').out).to.equal('1\n2\n5\n');
  });
  it('killall5 itself is not modelled and says so', () => {
    const r = m.run('killall5 2>&1; echo rc=$?');
    expect(r.out).to.equal("killall5: killall5 (signalling every process) is not modelled by tapsim's simulated userland\nrc=127\n");
  });
});
