import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

// Expected texts: Debian 12's bash 5.2.15 on this host (`bash -c '...'`, `bash FILE`, `... | bash`),
// and dash 0.5.12 for the same commands under sh.
describe('bash error messages (bash 5.2, not dash)', () => {
  it('-c and stdin: `bash: ` without a line; a script file: `FILE: line N: `', () => {
    const m = new Machine({ seed: 1 });
    const cmds = 'foo\ncat <&9\ncd /nonexist\ncat < /nonexist\necho x > /nonexist/y\nshift 5; echo $?\n';
    expect(m.run(`bash -c 'cd /etc/passwd; foo; cat <&9' 2>&1; echo $?`).out).to.equal(
      'bash: cd: /etc/passwd: Not a directory\nbash: foo: command not found\nbash: 9: Bad file descriptor\n1\n');
    expect(m.run(`printf '${cmds.replace(/\n/g, '\\n')}' > /root/x.sh; bash /root/x.sh 2>&1; echo $?`).out).to.equal(
      '/root/x.sh: line 1: foo: command not found\n/root/x.sh: line 2: 9: Bad file descriptor\n' +
      '/root/x.sh: line 3: cd: /nonexist: No such file or directory\n/root/x.sh: line 4: /nonexist: No such file or directory\n' +
      '/root/x.sh: line 5: /nonexist/y: No such file or directory\n1\n0\n');
    expect(m.run(`cat /root/x.sh | bash 2>&1`).out).to.equal(
      'bash: foo: command not found\nbash: 9: Bad file descriptor\nbash: cd: /nonexist: No such file or directory\n' +
      'bash: /nonexist: No such file or directory\nbash: /nonexist/y: No such file or directory\n1\n');
    expect(m.run(`bash -c 'echo $(cd /nonexist)' 2>&1`).out).to.equal('bash: cd: /nonexist: No such file or directory\n\n');
  });

  it('dash keeps its own forms', () => {
    const m = new Machine({ seed: 1 });
    expect(m.run(`sh -c 'cd /nonexist; cat <&9; shift 5' 2>&1; echo $?`).out).to.equal(
      'sh: 1: cd: can\'t cd to /nonexist\nsh: 1: 9: Bad file descriptor\nsh: 1: shift: can\'t shift that many\n2\n');
  });
});
