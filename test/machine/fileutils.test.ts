/**
 * What cp, mv, rm, mkdir, touch, stat and gzip do to the machine's files (their syscall sequences
 * are test/machine/syscall_sequences.test.ts): the outcomes and messages of GNU coreutils 9.1 and
 * gzip 1.12, checked against the same commands on this Debian 12 host.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

describe('file utilities: cp, mv, rm, mkdir, touch, stat, gzip', function () {
  this.timeout(60000);
  const run = (cmd: string) => new Machine({ cpus: 2, seed: 1 }).run(cmd);

  it('cp copies a file (copy_file_range), into a directory, and a tree with -r (symlinks as links)', () => {
    const passwd = run('cat /etc/passwd').out;
    expect(run('cp /etc/passwd /tmp/p; cat /tmp/p').out).to.equal(passwd);
    const r = run('mkdir /tmp/d; cp /etc/hostname /tmp/d; cat /tmp/d/hostname;'
      + ' mkdir /tmp/t; ln -s /etc/passwd /tmp/t/l; cp -r /tmp/t /tmp/t2; ls /tmp/t2 | cat; readlink /tmp/t2/l; cp /etc; cp /nope /tmp');
    expect(r.out).to.equal(run('cat /etc/hostname').out + "l\n/etc/passwd\ncp: missing destination file operand after '/etc'\n"
      + "Try 'cp --help' for more information.\ncp: cannot stat '/nope': No such file or directory\n");
  });

  it('ls -1 is an option (one name per line), as coreutils 9.1 parses it', () => {
    expect(run('mkdir /tmp/l; touch /tmp/l/a /tmp/l/b; ls -1 /tmp/l; ls -1a /tmp/l').out).to.equal('a\nb\n.\n..\na\nb\n');
  });

  it('mv renames, moves into a directory, and reports a missing source', () => {
    const r = run('touch /tmp/a; mv /tmp/a /tmp/b; ls /tmp; mkdir /tmp/d; mv /tmp/b /tmp/d; ls /tmp/d; mv /tmp/nope /tmp/d');
    expect(r.out).to.equal("b\nb\nmv: cannot stat '/tmp/nope': No such file or directory\n");
  });

  it('rm removes files and (-r) nested trees through directory descriptors; -f is quiet about missing files', () => {
    const r = run('mkdir -p /tmp/x/y/z; touch /tmp/x/f /tmp/x/y/g /tmp/x/y/z/h; rm /tmp/x; rm -r /tmp/x; ls /tmp; rm -f /tmp/nope; rm /tmp/nope');
    expect(r.out).to.equal("rm: cannot remove '/tmp/x': Is a directory\nrm: cannot remove '/tmp/nope': No such file or directory\n");
  });

  it('mkdir applies the umask (0777 -> 0755), -p makes ancestors and accepts existing ones, several operands keep their base', () => {
    const r = run('cd /tmp; mkdir a; mkdir a; mkdir -p b/c d/e; mkdir -p b/c; ls -d b/c d/e | cat; stat -c %a a; touch f; stat -c %a f');
    expect(r.out).to.equal("mkdir: cannot create directory 'a': File exists\nb/c\nd/e\n755\n644\n");
  });

  it('touch updates the times of an existing file (utimensat through fd 0)', () => {
    const m = new Machine({ cpus: 2, seed: 1 });
    const before = m.run('stat -c %Y /etc/hostname').out;
    m.run('sleep 2; touch /etc/hostname');
    expect(Number(m.run('stat -c %Y /etc/hostname').out)).to.be.greaterThan(Number(before));
  });

  it('stat names the owner and group from /etc/passwd and /etc/group (NSS files backend)', () => {
    const r = run('stat /etc/passwd');
    expect(r.out).to.match(/Access: \(0644\/-rw-r--r--\) {2}Uid: \( {4}0\/ {4}root\) {3}Gid: \( {4}0\/ {4}root\)\n/);
    expect(run('stat -c "%U %G %n" /etc/nsswitch.conf /etc/localtime').out).to.equal('root root /etc/nsswitch.conf\nroot root /etc/localtime\n');
  });

  it('/usr/share/zoneinfo/Etc/UTC has the size stat gives (its bytes made when first read): tzdata\'s 114-byte TZif2', () => {
    expect(run('stat -c %s /usr/share/zoneinfo/Etc/UTC; wc -c < /etc/localtime; head -c 5 /etc/localtime; echo; tail -c 6 /etc/localtime').out)
      .to.equal('114\n114\nTZif2\n\nUTC0\n');
  });

  it('gzip replaces a file by its .gz with the same mode and times; gunzip restores it', () => {
    const r = run('cp /etc/passwd /tmp/p; chmod 640 /tmp/p; gzip /tmp/p; ls /tmp; stat -c %a /tmp/p.gz; gunzip /tmp/p.gz; cat /tmp/p');
    expect(r.out).to.equal(`p.gz\n640\n${run('cat /etc/passwd').out}`);
  });

  it('tar czf pipes the archive through a gzip child (/bin/sh -c gzip); its failure is reported as on Debian 12', () => {
    const r = run('tar czf /tmp/a.tgz /etc/hostname /etc/passwd; echo rc=$?; tar tzf /tmp/a.tgz; zcat /tmp/a.tgz | wc -c; tar czf /nonexist/x.tgz /etc/hostname; echo rc=$?');
    // tar 1.34 on this host: the child's messages, then the parent's (status 2)
    expect(r.out).to.equal("tar: Removing leading `/' from member names\nrc=0\netc/hostname\netc/passwd\n10240\n"
      + "tar: Removing leading `/' from member names\ntar (child): /nonexist/x.tgz: Cannot open: No such file or directory\n"
      + 'tar (child): Error is not recoverable: exiting now\ntar: Child returned status 2\ntar: Error is not recoverable: exiting now\nrc=2\n');
  });

  it('gzip refuses to write compressed data to a terminal (gzip 1.12 on this host)', () => {
    expect(run('gzip < /etc/hostname').out).to.equal('gzip: compressed data not written to a terminal. Use -f to force compression.\nFor help, type: gzip -h\n');
  });
});
