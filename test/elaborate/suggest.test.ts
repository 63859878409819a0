/**
 * stap's `(similar: ...)` lists (src/suggest.ts, src/stap_points.ts).  The expected lists are
 * real-stap 4.8's (`../shared/tools/real-stap -p2 -e 'probe P {}'`); test/oracle/suggest.json
 * holds ~200 more, replayed by test/oracle/oracle.test.ts.
 */
import { expect } from 'chai';
import { levenshtein, suggest } from '../../src/suggest';
import { stapChildNames, parsePointTree, patternKeys } from '../../src/stap_points';
import { p2 } from '../helpers/p2';

const TIMER = ['hz', 'jiffies', 'ms', 'msec', 'ns', 'nsec', 'profile', 's', 'sec', 'us', 'usec'];

describe('similar: suggestions (levenshtein_suggest)', () => {
  it('weighs an edit inside the names 2, the first row and column 1, a case change 1', () => {
    expect(levenshtein('xyz', 'hz')).to.equal(3);
    expect(levenshtein('xyz', 's')).to.equal(4);
    expect(levenshtein('xyz', 'ms')).to.equal(5);
    expect(levenshtein('xyz', 'sec')).to.equal(6);
    expect(levenshtein('', 'abc')).to.equal(3);
    expect(levenshtein('Data', 'data')).to.equal(1);
    expect(levenshtein('same', 'same')).to.equal(0);
  });

  it('orders by distance, equal distances in byte order, at most 5, no threshold (real-stap timer.*)', () => {
    // registration order does not matter: stap collects the names in a std::set first
    const shuffled = [...TIMER].reverse();
    expect(suggest('xyz', shuffled)).to.equal('hz, s, ms, ns, us');
    expect(suggest('S', TIMER)).to.equal('s, ms, ns, us, hz');
    expect(suggest('msecs', TIMER)).to.equal('msec, sec, nsec, s, usec');
    expect(suggest('abcdefghijklmnop', TIMER)).to.equal('ns, s, hz, ms, msec');
    expect(suggest('', TIMER)).to.equal('s, hz, ms, ns, us');
    expect(suggest('x', [])).to.equal('');
    expect(suggest('xyz', TIMER, 2)).to.equal('hz, s');
    expect(suggest('xyz', TIMER, 5, 4)).to.equal('hz, s');
  });

  it('knows the children of stap 4.8 tree nodes, parameters dropped (kernel, procfs("x"), the root)', () => {
    expect(stapChildNames(['kernel'])!.sort()).to.deep.equal(['data', 'function', 'mark', 'statement', 'trace']);
    expect(suggest('badthing', stapChildNames(['kernel'])!)).to.equal('trace, data, mark, function, statement');
    expect(suggest('xyz', stapChildNames(['procfs(string)'])!)).to.equal('read, umask, write');
    expect(suggest('xyz', stapChildNames(['netfilter'])!)).to.equal('ip, pf, arp, hook, ipv4');
    expect(suggest('xyz', stapChildNames([])!)).to.equal('tty, vm, end, nfs, tcp');
    expect(stapChildNames(['nosuch'])).to.equal(null);
  });

  it('reads the tree file format (patterns keyed as the match tree keys them)', () => {
    expect(patternKeys('procfs(string).umask(number).read')).to.deep.equal(['procfs(string)', 'umask(number)', 'read']);
    expect(patternKeys('kernel.data(number).length(number).rw')).to.deep.equal(['kernel', 'data(number)', 'length(number)', 'rw']);
    const t = parsePointTree('# comment\na.b(number).c\na.d\n\n');
    expect([...t.kids.get('a')!.kids.keys()]).to.deep.equal(['b(number)', 'd']);
  });
});

describe('similar: the stap.*, staprun.* and python.* aliases (user-space marks)', () => {
  it('are known prefixes whose members are suggested (real-stap -p2)', () => {
    // (stdlib/stap_staticmarkers.stp, stdlib/python.stp: defined, resolving to nothing here)
    const err = (src: string): string => p2(src).err.split('\n').find((l) => l.startsWith('semantic error: probe point mismatch')) ?? '';
    expect(err('probe stap.xyz {}')).to.equal("semantic error: probe point mismatch (similar: pass0, pass1, pass2, pass3, pass4): identifier 'xyz' at :1:12");
    expect(err('probe python.xyz {}')).to.equal("semantic error: probe point mismatch (similar: function): identifier 'xyz' at :1:14");
  });
});
