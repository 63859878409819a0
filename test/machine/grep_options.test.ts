/**
 * GNU grep 3.8's command line (programs/core.ts grepOptions, grepMatcher): -e patterns, clustered and long
 * options anywhere, --, -w -x -o -l -L -H -s -m, -c per file, messages of bad options. Expected: the same
 * script run by this Debian 12 host's dash and grep 3.8.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

describe('grep: options and matching as GNU grep 3.8', () => {
  it('prints what Debian 12\'s grep prints for the same command lines', () => {
    const m = new Machine({ seed: 1 });
    const script = [
      'cd /tmp',
      "grep -e ab -e x g.txt; echo ---; grep -w ab g.txt; echo ---; grep -x ab g.txt; echo ---; grep -o ab g.txt; echo ---",
      "grep -l ab g.txt /etc/hostname; grep -L ab g.txt /etc/hostname; echo ---",
      "grep -H ab g.txt | head -1; grep -m 1 ab g.txt; grep -c -m 2 ab g.txt; grep -Z 2>&1; echo rc=$?; grep -s ab nonexist; echo rc=$?",
      "grep ab g.txt -n; grep -in ab -- g.txt; grep -ocw ab g.txt; grep --count ab g.txt; grep --foo 2>&1; grep -k x 2>&1",
      "grep -v -e a -e b g.txt; echo rc=$?; grep -c ab g.txt /etc/hostname; echo ab | grep -H b; grep -F 'a.' g.txt; echo rc=$?; grep -e 2>&1",
    ].join('\n');
    m.run("cd /tmp; printf 'ab\\nabc\\nx ab y\\nAB\\n' > g.txt");
    expect(m.run(script).out).to.equal("ab\nabc\nx ab y\n---\nab\nx ab y\n---\nab\n---\nab\nab\nab\n---\ng.txt\n/etc/hostname\n---\ng.txt:ab\nab\n2\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\nrc=2\nrc=2\n1:ab\n2:abc\n3:x ab y\n1:ab\n2:abc\n3:x ab y\n4:AB\n2\n3\ngrep: unrecognized option '--foo'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\ngrep: invalid option -- 'k'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\nAB\nrc=0\ng.txt:3\n/etc/hostname:0\n(standard input):ab\nrc=1\ngrep: option requires an argument -- 'e'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n");
  });
});
