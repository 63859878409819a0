/**
 * wc, tr, sort, uniq, cut, seq, head and tail as coreutils 9.1 prints them: every expected value below is the output of the same command
 * run with this Debian 12 host's coreutils 9.1 (LC_ALL=C, dash) on files holding the machine's own
 * /etc/passwd (958 bytes) and /etc/group (507 bytes), copied out with `tapsim shell -c 'cat ...'`.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

describe('textutils: wc, tr, sort, uniq, cut, seq, head (coreutils 9.1)', function () {
  this.timeout(60000);
  const run = (cmd: string) => new Machine({ cpus: 2, seed: 1 }).run(cmd).out;

  it('wc: one line per file, a total line, column widths from the files\' sizes, exit 1 for a missing file', () => {
    expect(run('wc -c /etc/passwd /etc/group; wc -l /etc/passwd nosuch /etc/group 2>&1; echo rc=$?; wc /etc/passwd; wc -l /etc/passwd;'
      + ' cat /etc/passwd | wc; cat /etc/passwd | wc -c - /etc/group; wc -L -m /etc/group'))
      .to.equal(' 958 /etc/passwd\n 507 /etc/group\n1465 total\n  20 /etc/passwd\nwc: nosuch: No such file or directory\n  42 /etc/group\n'
        + '  62 total\nrc=1\n 20  24 958 /etc/passwd\n20 /etc/passwd\n     20      24     958\n    958 -\n    507 /etc/group\n   1465 total\n'
        + '507  22 /etc/group\n');
  });

  it('a directory read fails with EISDIR: cat, wc and head report it and exit 1 (generic_read_dir)', () => {
    // host: LC_ALL=C cat /etc /etc/hostname; wc /etc; head -c 10 /etc; head -n 2 /etc (each 2>&1, echo rc=$?)
    expect(run('cat /etc /etc/hostname 2>&1; echo rc=$?; wc /etc 2>&1; echo rc=$?; head -c 10 /etc 2>&1; echo rc=$?; head -n 2 /etc 2>&1; echo rc=$?'))
      .to.equal('cat: /etc: Is a directory\ndebian\nrc=1\nwc: /etc: Is a directory\n      0       0       0 /etc\nrc=1\n'
        + "head: error reading '/etc': Is a directory\nrc=1\nhead: error reading '/etc': Is a directory\nrc=1\n");
  });

  it('tr: NUL and octal escapes, classes, ranges, -c, -d, -s, [c*n], and its errors', () => {
    expect(run("printf 'a\\0b\\0' | tr '\\0' '\\n'; echo 'Hello World' | tr '[:lower:]' '[:upper:]'; echo 'hello 123 world' | tr -cs 'a-z' '\\n';"
      + " echo 'hello 123 world 45' | tr -cd '0-9\\n'; echo aabbccdd | tr -s 'a-c'; echo abcdef | tr 'a-f' '[x*2]yz'; echo abc | tr '\\141' X;"
      + " echo hello | tr -ds l o; echo abc | tr z-a x 2>&1; echo rc=$?; echo abc | tr -d a b 2>&1; echo abc | tr a '[:digit:]' 2>&1"))
      .to.equal('a\nb\nHELLO WORLD\nhello\nworld\n12345\nabcdd\nxxyzzz\nXbc\nheo\n'
        + "tr: range-endpoints of 'z-a' are in reverse collating sequence order\nrc=1\n"
        + "tr: extra operand 'b'\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n"
        + "tr: when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'\n");
  });

  it('sort -t/-k/-n/-r/-u, uniq -c/-d/-u, cut -c/-s, seq -w, head -c -N/-n -N', () => {
    expect(run("cut -d: -f7 /etc/passwd | sort | uniq -c | sort -rn; sort -t: -k3,3n /etc/passwd | cut -d: -f1 | head -4; sort -t: -k3nr /etc/group | head -2;"
      + " printf ' b 2\\na 10\\n  c 1\\n' | sort -k2; printf 'x 1\\ny 1\\nz 2\\n' | sort -k2,2nr -k1; printf 'a 1\\nb 1\\n' | sort -u -k2;"
      + " printf 'a\\na\\nb\\n' | uniq -d; printf 'a\\na\\nb\\n' | uniq -u; cut -c1-4 /etc/group | head -2; printf 'a\\tb\\nc\\n' | cut -s -f2;"
      + ' seq -w 8 10; seq -w 5 -3 -5; head -c -900 /etc/passwd; head -n -19 /etc/passwd'))
      .to.equal('     18 /usr/sbin/nologin\n      1 /bin/sync\n      1 /bin/bash\nroot\ndaemon\nbin\nsys\nnogroup:x:65534:\nsystemd-journal:x:999:\n'
        + '  c 1\na 10\n b 2\nz 2\nx 1\ny 1\na 1\na\nb\nroot\ndaem\nb\n08\n09\n10\n05\n02\n-1\n-4\n'
        + 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sroot:x:0:0:root:/root:/bin/bash\n');
  });

  it('sort -g (strtold: failures, NaN, numbers), -h (SI suffixes), -V (filevercmp), -M (months), as keys too', () => {
    // host: LC_ALL=C sh -c '<the same commands>' with coreutils 9.1
    expect(run("printf '1e3\\n2\\n-5\\n0x10\\nabc\\nnan\\n-inf\\ninf\\n 7\\n.5\\n0x1p4\\n' | sort -g;"
      + " printf '1K\\n2M\\n3\\n1G\\n-1K\\n0.5K\\n1k\\n2\\n10T\\n' | sort -h;"
      + " printf 'a-1.10\\na-1.9\\na-1.2\\n.hidden\\n..\\n.\\nfoo.tar.gz\\nfoo-1.0.tar.gz\\nfoo-1.0~rc1.tar.gz\\nfoo-1.0a.tar.gz\\n2.6.32\\n2.6.9\\n' | sort -V;"
      + " printf 'Mar\\nJan\\nfeb\\nxyz\\n  dec\\n' | sort -M; printf 'b 3K\\na 1M\\nc 2\\n' | sort -k2h; printf 'x 1e2\\ny 5\\n' | sort -k2,2gr"))
      .to.equal('abc\nnan\n-inf\n-5\n.5\n2\n 7\n0x10\n0x1p4\n1e3\ninf\n-1K\n2\n3\n0.5K\n1K\n1k\n2M\n1G\n10T\n.\n..\n.hidden\n2.6.9\n2.6.32\n'
        + 'a-1.2\na-1.9\na-1.10\nfoo.tar.gz\nfoo-1.0~rc1.tar.gz\nfoo-1.0.tar.gz\nfoo-1.0a.tar.gz\nxyz\nJan\nfeb\nMar\n  dec\nc 2\nb 3K\na 1M\nx 1e2\ny 5\n');
  });

  it('tail -c N, -c +N, -n +N, size suffixes and a bad count', () => {
    // host: LC_ALL=C, the machine's /etc/passwd copied out, the same commands
    expect(run('tail -c 20 /etc/passwd; tail -c +900 /etc/passwd; seq 1 3000 > /tmp/s; tail -c 30 /tmp/s; tail -c +14000 /tmp/s; tail -n +2998 /tmp/s;'
      + ' tail -c 1K /tmp/s | wc -c; echo abcdef | tail -c 3; echo abcdef | tail -c +3; tail -c x /tmp/s 2>&1; echo rc=$?'))
      .to.equal('d:/usr/sbin/nologin\nsbin/nologin\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\n2995\n2996\n2997\n2998\n2999\n3000\n'
        + "2998\n2999\n3000\n1024\nef\ncdef\ntail: invalid number of bytes: 'x'\nrc=1\n");
  });
});
