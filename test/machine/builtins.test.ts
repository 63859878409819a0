import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

describe('dash builtins echo, printf, test and [', () => {
  afterEach(resetKernel);

  it('echo: -n, escapes always interpreted, \\c stops the output', () => {
    const m = new Machine({ seed: 1 });
    expect(m.run(`echo 'a\\tb' x; echo -n no; echo 'c\\cd' e; echo '\\0101'`).out).to.equal('a\tb x\nnoc' + 'A\n');
  });

  it('printf: conversions, padding, format reuse, numeric errors', () => {
    const m = new Machine({ seed: 1 });
    expect(m.run(`printf '%05d|%-4s|%x|%o|%c|%%\\n' 42 ab 255 8 xyz`).out).to.equal('00042|ab  |ff|10|x|%\n');
    expect(m.run(`printf '%s=%d\\n' a 1 b 2`).out).to.equal('a=1\nb=2\n');
    expect(m.run(`printf '%b|%.2s|%+d|%#x\\n' 'x\\ty' abc 5 255`).out).to.equal('x\ty|ab|+5|0xff\n');
    expect(m.run(`printf %d zz 2>&1; echo " $?"`).out).to.equal('sh: 1: printf: zz: expected numeric value\n0 1\n');
    expect(m.run(`printf '%d|%s\\n' 3x 2>&1`).out).to.equal('sh: 1: printf: 3x: not completely converted\n3|\n');
  });

  it('printf: floating-point conversions as glibc prints them (dash on Debian 12: printf "%g %g %g %e %G %.3g %f\\n" ...)', () => {
    const m = new Machine({ seed: 1 });
    // expected: Debian 12's dash and coreutils printf on this host print the same line
    expect(m.run(`printf '%g %g %g %e %G %.3g %f %#g\\n' 0.0001 123456789 0.5 12345 1e-10 2.5 3 2`).out)
      .to.equal('0.0001 1.23457e+08 0.5 1.234500e+04 1E-10 2.5 3.000000 2.00000\n');
  });

  it('test and [: strings, integers, files, !, -a/-o, errors', () => {
    const m = new Machine({ seed: 1 });
    const st = (c: string) => m.run(`${c}; echo $?`).out.trim();
    expect(st('[ a = a ]')).to.equal('0');
    expect(st('[ a != a ]')).to.equal('1');
    expect(st('test 3 -lt 4 -a -d /tmp')).to.equal('0');
    expect(st('test ! -e /nonexistent')).to.equal('0');
    expect(st('[ -f /tmp -o -z "" ]')).to.equal('0');
    expect(st('test')).to.equal('1');
    expect(st('test -n ""')).to.equal('1');
    expect(m.run('[ 1 -eq 1 2>&1; echo $?').out).to.equal('sh: 1: [: missing ]\n2\n');
    expect(m.run('test 1 -eq x 2>&1; echo $?').out).to.equal('sh: 1: test: Illegal number: x\n2\n');
  });

  it('a builtin runs in the shell process, its redirections undone afterwards', async () => {
    const m = new Machine({ seed: 1 });
    expect(m.run('echo one > /tmp/f; echo two; cat /tmp/f').out).to.equal('two\none\n');
    const p = compile(`
      probe syscall.execve, syscall.clone { if (pid() == target() || ppid() == target()) printf("%s %s\\n", name, argstr) }
      probe syscall.write { if (pid() == target()) printf("write %s\\n", user_string_n_quoted(buf_uaddr, count)) }`);
    const r = await stapOnMachine(p, "sh -c 'echo hi > /dev/null; echo bye'");
    // the target's own exec of sh (stapio's child), then no clone and no execve of echo
    expect(r.out).to.equal('execve "/usr/bin/sh", ["sh", "-c", "echo hi > /dev/null; echo bye"], [/* 0 vars */]\nwrite "hi\\n"\nwrite "bye\\n"\nbye\n');
  });
});
