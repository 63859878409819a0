/**
 * tar tzf / xzf run the decompressor as GNU tar 1.34 does (sys_child_open_for_uncompress). Expected:
 * strace -f of Debian 12's tar on this Debian 12 host, 2026-11-26 (`tar czf /tmp/mt.tgz mt; strace -f
 * tar tzf /tmp/mt.tgz`): the parent's pipe2, clone, close of the write end, fstat of the read end and
 * read of a 10240-byte record; the child's set_robust_list, SIGPIPE default, close(1) dup(4) close(4),
 * close(3), stat and open O_RDONLY of the archive, close(0) dup(3) close(3), then execve of gzip -d
 * through PATH (execvp: the directories before /usr/bin fail with ENOENT).
 */
import { expect } from 'chai';
import { simulatedImages } from './images';

const SETUP = 'mkdir -p /tmp/mt/a; echo x > /tmp/mt/a/f; cd /tmp; tar czf /tmp/mt.tgz mt';

describe('tar: the gzip -d child of tar tzf (strace of Debian 12 tar 1.34)', function () {
  this.timeout(60000);
  it('forks, wires the pipe and the archive, and execvp\'s gzip -d', () => {
    const ims = simulatedImages('tar tzf /tmp/mt.tgz', SETUP);
    const tar = ims.find((i) => i.exe.endsWith('/tar'))!;
    const from = tar.names.indexOf('pipe2');
    expect(tar.names.slice(from, from + 5)).to.deep.equal(['pipe2', 'clone', 'close', 'newfstatat', 'read']);
    expect(Number(tar.args[from + 4][2])).to.equal(10240);
    const gz = ims.find((i) => i.exe.endsWith('/gzip'))!;
    expect(gz.args[0][1]).to.deep.equal(['gzip', '-d']);
  });
});
