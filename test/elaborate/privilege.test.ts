/**
 * --privilege at pass 2 (issue 18).  Expected messages and what each level may use were taken
 * from Debian's SystemTap 4.8 (/work/shared/tools/real-stap --privilege=... -p2), e.g.
 *   real-stap --privilege=stapusr -p2 -e 'probe kernel.function("vfs_read") {}'
 *   -> semantic error: probe point is not allowed for --privilege=stapusr: keyword at :1:14
 *   real-stap --unprivileged -p2 -e 'probe begin { println(kernel_string(0)) }'
 *   -> semantic error: function may not be used when --privilege=stapusr is specified: identifier 'kernel_string' ...
 * stapsys and stapdev may use both.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { compile } from '../translate/pipeline';
import { installKernelProbes } from '../../src/probes/setup';
import { stdlibDir } from '../../src/elaborate';

describe('elaborate/privilege: what each level may use', function () {
  this.timeout(60000);
  before(() => installKernelProbes());

  const ok = (text: string, privilege: string) => {
    const c = compile(text, { privilege });
    expect(c.err, `${privilege}: ${text}`).to.not.match(/semantic error/);
    expect(c.tr, `${privilege}: ${text}`).to.not.equal(undefined);
  };
  const refused = (text: string, privilege: string, message: RegExp) => {
    const c = compile(text, { privilege });
    expect(c.tr, `${privilege}: ${text}`).to.equal(undefined);
    expect(c.err).to.match(message);
  };

  it('stapusr: only begin/end/error/never and the timers among probe points', () => {
    for (const p of ['begin', 'end', 'error', 'never', 'begin(5)', 'timer.s(1)', 'timer.ms(10).randomize(2)', 'timer.jiffies(3)', 'timer.hz(100)']) {
      ok(`probe ${p} { println(1) }`, 'stapusr');
    }
    refused('probe kernel.function("vfs_read") {}', 'stapusr',
      /semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n.*\n.*\n\nsemantic error: probe point is not allowed for --privilege=stapusr: keyword at :1:14\n/);
    refused('probe kernel.function("vfs_read").return {}', 'stapusr', /not allowed for --privilege=stapusr: keyword at :1:35/);
    refused('probe kernel.trace("sched_switch") {}', 'stapusr', /not allowed for --privilege=stapusr: identifier 'trace' at :1:14/);
    refused('probe kprobe.function("vfs_read") {}', 'stapusr', /not allowed for --privilege=stapusr: keyword at :1:14/);
    refused('probe procfs("x").read {}', 'stapusr', /not allowed for --privilege=stapusr: identifier 'read' at :1:19/);
    refused('probe syscall.read { println(1) }', 'stapusr', /probe point is not allowed for --privilege=stapusr: identifier 'trace'/);
    refused('probe timer.profile { println(1) }', 'stapusr', /probe point is not allowed for --privilege=stapusr: identifier 'sample'/);
  });

  it('stapusr: tapset functions with embedded C only when marked unprivileged', () => {
    ok('probe begin { println(execname(), pid(), gettimeofday_s(), strlen("abc")) }', 'stapusr');
    ok('probe begin { println(user_string(0)) }', 'stapusr'); // (myproc-unprivileged)
    refused('probe begin { println(kernel_string(0)) }', 'stapusr',
      /semantic error: function may not be used when --privilege=stapusr is specified: identifier 'kernel_string' at \S+conversions.stp:\d+:10\n/);
    refused('probe begin { println(ctime(0)) }', 'stapusr', /function may not be used when --privilege=stapusr is specified: identifier 'ctime'/);
    // an unused function is not checked (stap checks what is left after elision)
    ok('function f() { return kernel_string(0) } probe begin { println(1) }', 'stapusr');
  });

  it('stapsys and stapdev: every probe point and function', () => {
    for (const level of ['stapsys', 'stapdev']) {
      ok('probe kernel.function("vfs_read") { println(kernel_string(0)) }', level);
      ok('probe procfs("x").read { $value = ctime(0) }', level);
    }
  });

  it('every embedded-C function of stdlib/ says whether it is unprivileged the way stap 4.8 does', () => {
    // the classification of each, from the oracle (a call under --privilege=stapusr): refused or not
    const refusedByStap = ['kernel_string', 'ctime', 'ntohl', 'htonl', 'symname', 'symdata', 'string_quoted', 'switch_file', 'big_endian4',
      'user_string_quoted', 'errno_str', 'ip_ntop'];
    const allowedByStap = ['execname', 'pid', 'tid', 'uid', 'gettimeofday_ns', 'strlen', 'substr', 'user_string', 'user_int_error', 'usymname',
      'ubacktrace', 'print_ubacktrace', 'uaddr', '_sys_open_flag_str', '_signal_name'];
    const text = fs.readdirSync(stdlibDir()).filter((f) => f.endsWith('.stp')).map((f) => fs.readFileSync(path.join(stdlibDir(), f), 'latin1')).join('\n');
    const marked = (name: string): boolean[] => [...text.matchAll(new RegExp(`function\\s+${name}\\b[^{%]*%\\{([^%]*)%\\}`, 'g'))]
      .map((m) => /\/\*\s*(unprivileged|myproc-unprivileged)\s*\*\//.test(m[1]));
    for (const n of refusedByStap) expect(marked(n), n).to.not.include(true);
    for (const n of allowedByStap) {
      expect(marked(n), n).to.not.be.empty;
      expect(marked(n), n).to.not.include(false);
    }
  });
});
