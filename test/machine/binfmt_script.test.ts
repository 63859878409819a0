/**
 * Scripts as executables: the kernel's binfmt_script (a "#!" line names the interpreter and one
 * argument) and, for a file the kernel cannot run, dash's tryexec and glibc's execvp running it under
 * /bin/sh. Expected output: the same commands on this Debian 12 host (dash 0.5.12, coreutils env).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { scriptInterpreter } from '../../src/machine/process/exec';

describe('machine: scripts (binfmt_script, ENOEXEC)', () => {
  const m = new Machine({ seed: 1 });
  it('a #! script runs its interpreter, named after the script, its argv the interpreter, the file and the arguments', () => {
    m.run('printf \'#!/bin/sh\\necho hi $0 $1; cat /proc/$$/comm; readlink /proc/$$/exe; tr "\\\\0" " " < /proc/$$/cmdline; echo\\n\' > /tmp/s; chmod +x /tmp/s');
    expect(m.run('/tmp/s a; cd /tmp && ./s b').out).to.equal(
      'hi /tmp/s a\ns\n/usr/bin/dash\n/bin/sh /tmp/s a \nhi ./s b\ns\n/usr/bin/dash\n/bin/sh ./s b \n');
  });
  it('a file without #! runs under /bin/sh from dash and from env (execvp); a missing interpreter is "not found"', () => {
    m.run('printf "echo noshebang \\$0 \\$1\\n" > /tmp/n; chmod 755 /tmp/n; printf "#!/nonexist\\n" > /tmp/z; chmod 755 /tmp/z');
    expect(m.run('/tmp/n x; env /tmp/n y').out).to.equal('noshebang /tmp/n x\nnoshebang /tmp/n y\n');
    const r = m.run('/tmp/z 2>&1; echo rc=$?');
    expect(r.out).to.equal('sh: 1: /tmp/z: not found\nrc=127\n');
  });
  it("parses the #! line as fs/binfmt_script.c: one argument, blanks dropped, the line's first 256 bytes", () => {
    const b = (s: string) => Buffer.from(s, 'latin1');
    expect(scriptInterpreter(b('#! /usr/bin/awk  -f  \nx'), './a', ['./a', '1'])).to.deep.equal({ interp: '/usr/bin/awk', argv: ['/usr/bin/awk', '-f', './a', '1'] });
    expect(scriptInterpreter(b('#!/bin/sh -e -x\n'), 's', ['s'])).to.deep.equal({ interp: '/bin/sh', argv: ['/bin/sh', '-e -x', 's'] });
    expect(scriptInterpreter(b('#!\n'), 's', ['s'])).to.equal(null);
    expect(scriptInterpreter(b('echo hi\n'), 's', ['s'])).to.equal(null);
  });
});
