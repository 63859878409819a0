import { expect } from 'chai';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { elaborate, TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { translate, Translated } from '../../src/translate';
import { resetKernel, stapOnMachine, Session } from './helpers';

/** The pipeline with the library macros (stdlib/*.stpm), as the stap command parses scripts. */
function compile(text: string): { tr?: Translated; err: string } {
  let err = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, (s: string) => (err += s));
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
  const src: A.SourceFile = { name: '<input>', text, isTapset: false };
  const f = parseFile(src, { args: [], guru: false, usedArgs: new Set(), libraryMacros: library.macros() } as never, diag);
  if (!f || diag.errorCount) return { err };
  const prog = elaborate([f], { guru: false, args: [], library }, diag);
  if (!prog || diag.errorCount) return { err };
  try {
    return { tr: translate(prog, { diag }), err };
  } catch (e) {
    return { err: err || String(e) };
  }
}

/** `stap SCRIPT -c CMD`: CMD(module name) runs on a fresh machine. */
const stapC = (script: string, cmd: (mod: string) => string): Promise<Session> => stapOnMachine(compile(script), cmd);

describe('procfs probes', () => {
  afterEach(resetKernel);

  it('read probe sets $value; write probe sees what was written', async () => {
    const r = await stapC(`global n
      probe procfs("foo").read { n++; $value = sprintf("read %d\\n", n); $value .= "more\\n" }
      probe procfs("foo").write { printf("got [%s]\\n", $value) }`,
    (mod) => `sh -c 'cat /proc/systemtap/${mod}/foo; cat /proc/systemtap/${mod}/foo; echo hi > /proc/systemtap/${mod}/foo'`);
    expect(r.err).to.equal('');
    expect(r.out).to.equal('read 1\nmore\nread 2\nmore\ngot [hi\n]\n');
  });

  it('procfs.read is the "command" file; .maxsize(N) limits $value to N-1 bytes', async () => {
    const r = await stapC('probe procfs.read.maxsize(8) { $value = "0123456789" }',
      (mod) => `cat /proc/systemtap/${mod}/command`);
    expect(r.out).to.equal('0123456');
  });

  it('prometheus macros print the exposition format', async () => {
    const r = await stapC(`global a
      probe begin { a[1, "x\\"y"] = 5; a[2, "z"] = 7 }
      probe prometheus { @prometheus_dump_array2(a, "m", "k1", "k2") }`,
    (mod) => `cat /proc/systemtap/${mod}/__prometheus`);
    expect(r.out).to.equal('m{k1="1",k2="x\\"y"} 5\nm{k1="2",k2="z"} 7\n');
  });

  it('$value is only known in procfs probes', () => {
    const c = compile('probe begin { $value = "x" }');
    expect(c.err).to.match(/unresolved target-symbol expression/);
  });
});
