/**
 * The real install's tree beside the machine's own files (userland/root_tree.ts, data/userland/root.tsv
 * from the recording guest's debootstrapped tree): the expected values are the recording guest's
 * (`ls`/`stat` of $REC_WORK/rootfs, the tree mke2fs -d copied onto its disk; /proc/1/exe and the
 * maps' names as Linux prints them for these files).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { Inode, LazyDir } from '../../src/machine/include/fs';
import { rootEntries } from '../../src/machine/userland/root_tree';
import { programLink } from '../../src/machine/userland/fstree';
import { resolveExecutable } from '../../src/probes/task_finder';

describe('machine: the Debian install tree (root.tsv)', () => {
  const m = new Machine({ seed: 1 });
  it("lists the guest's directories: /usr/sbin's 152 entries, /usr/bin's 368 and the machine's own tools", () => {
    expect(m.run('ls /usr/sbin | wc -l').out).to.equal('152\n');
    // the guest's 368 and the machine's programs Debian 12 has elsewhere or not installed
    // (xxd, make, gcc and cc, block_hasher, tbench_srv, postgres, perf, trace-cmd, stap, ...)
    const bin = m.run('ls -1 /usr/bin').out.split('\n').filter(Boolean);
    expect(bin.length).to.be.greaterThan(368);
    for (const f of ['dash', 'mawk', 'nc.openbsd', 'which.debianutils', 'apt', 'dpkg', 'systemctl', 'xxd']) expect(bin).to.include(f);
  });
  it('has the links and stat of the real files', () => {
    expect(m.run('ls -l /bin/sh /usr/sbin/init /usr/bin/awk').out).to.equal(
      'lrwxrwxrwx 1 root root  4 Jan  5  2023 /bin/sh -> dash\n'
      + 'lrwxrwxrwx 1 root root 21 Jun 17  2022 /usr/bin/awk -> /etc/alternatives/awk\n'
      + 'lrwxrwxrwx 1 root root 20 Nov 12 09:30 /usr/sbin/init -> /lib/systemd/systemd\n');
    expect(m.run('stat -c "%s %y %A" /usr/sbin/cron /usr/lib/systemd/systemd-journald').out).to.equal(
      '51776 2023-03-02 07:33:55.000000000 +0000 -rwxr-xr-x\n170496 2025-11-12 09:30:00.000000000 +0000 -rwxr-xr-x\n');
  });
  it('runs the services and the shell from their real files (/proc/PID/exe, maps), named as exec named them', () => {
    expect(m.run('readlink /proc/1/exe; cat /proc/1/comm').out).to.equal('/usr/lib/systemd/systemd\nsystemd\n');
    const sshd = m.run('ps -C sshd -o pid=').out.trim();
    expect(m.run(`readlink /proc/${sshd}/exe`).out).to.equal('/usr/sbin/sshd\n');
    const sh = m.run('sh -c \'readlink /proc/$$/exe; cat /proc/$$/comm; head -1 /proc/$$/maps\'').out.split('\n');
    expect(sh[0]).to.equal('/usr/bin/dash');
    expect(sh[1]).to.equal('sh');
    expect(sh[2]).to.match(/ r--p 00000000 08:01 \d+ +\/usr\/bin\/dash$/);
  });
  it("numbers an entry the same whatever is looked up first, after the machine's own files", () => {
    const a = new Machine({ seed: 1 }), b = new Machine({ seed: 1 });
    const ino = (x: Machine, p: string): number => x.fs.lookup(p)!.ino;
    const first = ino(a, '/usr/share/doc/dash/copyright');
    ino(b, '/usr/sbin/cron');
    ino(b, '/usr/lib/apt/methods/http');
    expect(ino(b, '/usr/share/doc/dash/copyright')).to.equal(first);
    // numbers in the recorded (mke2fs -d) order, above every inode the machine made at boot
    // (/usr/sbin/cron is one of the machine's programs: its own number, made with the others)
    expect(ino(a, '/usr/sbin/agetty')).to.be.lessThan(ino(a, '/usr/share/doc/dash/copyright'));
    expect(ino(a, '/usr/sbin/agetty')).to.be.greaterThan(ino(a, '/usr/bin/nc.openbsd'));
    expect(ino(a, '/usr/sbin/cron')).to.be.lessThan(ino(a, '/usr/bin/nc.openbsd'));
    // a file made after the boot takes a number after the whole reserved tree
    a.run('touch /root/new');
    const recorded = rootEntries('/usr/share/doc/dash').length;
    expect(recorded).to.be.greaterThan(0);
    expect(ino(a, '/root/new')).to.be.greaterThan(ino(a, '/usr/share/doc/dash/copyright'));
  });
  it("gains the recorded entries in every directory of the machine's own that the recording has entries in, however deep", () => {
    const x = new Machine({ seed: 1 });
    const missed: string[] = [];
    const walk = (d: Inode, p: string, depth: number): void => {
      for (const [n, c] of d.children instanceof LazyDir ? [] : d.children ?? []) {
        const q = p === '/' ? `/${n}` : `${p}/${n}`;
        if (!c.isDir || c.parent !== d || c.fs !== 'ext4' || q === '/etc') continue;
        if (!(c.children instanceof LazyDir) && rootEntries(q).length) missed.push(q);
        walk(c, q, depth + 1);
      }
    };
    if (!(x.fs.root.children instanceof LazyDir)) missed.push('/');
    for (const [n, c] of x.fs.root.children ?? []) if (c.isDir && c.parent === x.fs.root && c.fs === 'ext4' && n !== 'etc') walk(c, `/${n}`, 1);
    expect(missed).to.deep.equal([]);
    // the guest's link counts and entries (ls -ld of the rootfs: /usr/lib 26, /usr/share 46; the
    // machine's own /usr/share/zoneinfo/Etc, four levels down, has the guest's 35 zones)
    expect(x.run('ls -ld /usr/share /usr/lib | cut -c1-14').out).to.equal('drwxr-xr-x 26 \ndrwxr-xr-x 46 \n');
    expect(x.run('ls /usr/share/zoneinfo/Etc | wc -l; ls -ld /usr/share/zoneinfo | cut -c1-14').out).to.equal('35\ndrwxr-xr-x 20 \n');
  });
  it("stap's process(NAME) resolves through the same links (find_executable, then realpath)", () => {
    expect(resolveExecutable('sh')).to.equal('/usr/bin/dash');
    expect(resolveExecutable('sshd')).to.equal('/usr/sbin/sshd');
    expect(resolveExecutable('/sbin/init')).to.equal('/usr/lib/systemd/systemd');
    expect(resolveExecutable('ls')).to.equal('/usr/bin/ls');
    expect(programLink('/usr/bin/awk')).to.equal('/usr/bin/mawk');
  });
});
