/**
 * /proc/mounts and /proc/PID/mountinfo (src/machine/fs/proc_namespace.ts) against the recorded guest's
 * (data/recordings/system.json.gz `mounts` and `mountinfo`): every mount the machine has that the guest
 * has is the guest's line, byte for byte; stat's st_dev of each tmpfs is its mount's.
 */
import { expect } from 'chai';
import * as path from 'path';
import { Machine } from '../../src/machine/machine';
import { readJsonGz, RECORDINGS_DIR } from '../../scripts/record/recording';

describe('/proc/mounts and mountinfo', function () {
  this.timeout(60000);
  const sys = readJsonGz<{ mounts: string; mountinfo: string }>(path.join(RECORDINGS_DIR, 'system.json.gz'));
  // a machine per command, made when the test runs (not when the file loads: other files' tests reset the kernel in between)
  const lines = (cmd: string): string[] => new Machine({ cpus: 2, seed: 1 }).run(cmd).out.trim().split('\n');

  it('shows the guest\'s lines for the mounts the machine has, in the guest\'s order, /tmp after them', () => {
    const mounts = lines('cat /proc/mounts');
    const info = lines('cat /proc/self/mountinfo');
    const guest = sys.mounts.trim().split('\n');
    const guestInfo = sys.mountinfo.trim().split('\n');
    for (const l of mounts.filter((x) => x.split(' ')[1] !== '/tmp')) expect(guest, l).to.include(l);
    for (const l of info.filter((x) => x.split(' ')[4] !== '/tmp')) expect(guestInfo, l).to.include(l);
    expect(mounts.map((l) => l.split(' ')[1])).to.deep.equal(['/proc', '/sys', '/dev', '/', '/run', '/run/lock', '/sys/kernel/debug', '/sys/kernel/tracing', '/tmp']);
    expect(info).to.have.length(mounts.length);
    expect(lines('cat /proc/1/mountinfo')).to.deep.equal(info);
  });

  it('tail reads a /proc file through to its end (st_size 0: coreutils\' pipe_lines), as cat | tail does', () => {
    expect(lines('tail -n 2 /proc/mounts')).to.deep.equal(lines('cat /proc/mounts').slice(-2));
    expect(lines('tail -n 1 /proc/self/mountinfo')[0]).to.match(/^68 24 0:36 \/ \/tmp /);
  });

  it('adds a mount -t debugfs under its parent mount; st_dev of tmpfs files is their mount\'s', () => {
    const info = lines('mkdir -p /debug; mount -t debugfs nodev /debug; cat /proc/self/mountinfo');
    expect(info.length).to.equal(10);
    expect(info[info.length - 1]).to.equal('69 24 0:7 / /debug rw,relatime shared:25 - debugfs nodev rw');
    expect(lines('touch /tmp/x /run/lock/y; stat -c "%d %n" /run /run/lock/y /tmp/x /')).to.deep.equal(['23 /run', '24 /run/lock/y', '36 /tmp/x', '2049 /']);
  });
});
