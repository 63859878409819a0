/**
 * wc, tr, sort, uniq, cut, seq and head as coreutils 9.1 prints them: every expected value below is the output of the same command
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
});
