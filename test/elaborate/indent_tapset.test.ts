/**
 * The indent tapset as stap 4.8 has it: its state in the globals _indent_counters and
 * _indent_timestamps, its helpers private from --compatible=3.0 on (listed after the public
 * functions, as stap sorts their mangled names), and its padding: a positive delta counts before
 * the call it marks, a negative one after (real-stap -p2 listings in test/oracle/sweep.json,
 * compat:45 and compat:46; the values from the tapset's documented behaviour).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { p2 } from '../helpers/p2';

function run(src: string): string {
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  return spawnSync(process.execPath, [cli, '-e', src], { encoding: 'latin1', timeout: 90000 }).stdout;
}

const names = (out: string): string[] => out.split('\n').filter((l) => l && !l.startsWith(' ') && !l.startsWith('#')).map((l) => l.split(':')[0]);

describe('indent tapset (stap 4.8 names and results)', () => {
  it('lists the globals and the private helpers after the public functions', () => {
    expect(names(p2('probe begin { println(indent(1)) }').out)).to.deep.equal([
      '_indent_counters', '_indent_timestamps',
      '__indent_timestamp', 'gettimeofday_ns', 'gettimeofday_us', 'indent', '_generic_indent', '_generic_indent_depth', 'begin /* <- begin */',
    ]);
    expect(names(p2('probe begin { println(thread_indent_depth(1)) }').out)).to.deep.equal([
      '_indent_counters', 'thread_indent_depth', 'tid', '_generic_indent_depth', 'begin /* <- begin */',
    ]);
  });

  it('a script private function also sorts after the public ones', () => {
    expect(names(p2('private function aa() { return 1 } function zz() { return aa() } probe begin { println(zz()) }').out))
      .to.deep.equal(['zz', 'aa', 'begin /* <- begin */']);
  });

  it('pads an entry at depth 0 with nothing, and a return as its entry', () => {
    expect(run('probe begin { printf("[%s][%s][%s][%s]\\n", indent(1), indent(1), indent(-1), indent(-1)); exit() }'))
      .to.equal('[     0 :][     0 : ][     0 : ][     0 :]\n');
    expect(run('probe begin { printf("%d %d %d %d %d\\n", indent_depth(1), indent_depth(2), indent_depth(-1), indent_depth(-5), indent_depth(0)); exit() }'))
      .to.equal('0 2 2 1 0\n');
  });
});
