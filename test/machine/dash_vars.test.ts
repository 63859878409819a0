/**
 * dash's variable and option builtins (sh/var_builtins.ts, sh/getopts.ts) and GNU env. Expected
 * output: the same command lines run by this Debian 12 host's dash 0.5.12 and coreutils 9.1
 * (`env -i PATH=/usr/bin:/bin /bin/sh -c '...'`).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';

describe('dash: getopts, set, export -p, $-, set -e in conditions; GNU env', () => {
  const m = new Machine({ seed: 1 });
  const sh = (cmd: string): string => m.run(cmd).out;

  it('getopts walks grouped letters and option arguments, OPTIND and OPTARG as dash sets them', () => {
    expect(sh('while getopts ab:c o -a -b x -cab y z; do echo "o=$o OPTARG=$OPTARG OPTIND=$OPTIND"; done; echo end OPTIND=$OPTIND')).to.equal(
      'o=a OPTARG= OPTIND=2\no=b OPTARG=x OPTIND=4\no=c OPTARG= OPTIND=5\no=a OPTARG= OPTIND=5\no=b OPTARG=y OPTIND=6\nend OPTIND=6\n');
  });

  it('getopts: silent mode (leading :), the messages of the other, set -- starts over', () => {
    expect(sh('set -- -x -y; while getopts :xb: o; do echo "o=$o OPTARG=$OPTARG"; done; set -- -b; while getopts :b: o; do echo "o=$o OPTARG=$OPTARG"; done; '
      + 'set -- -b; while getopts b: o; do echo "o=$o OPTARG=${OPTARG-unset}"; done 2>&1')).to.equal(
      'o=x OPTARG=\no=? OPTARG=y\no=: OPTARG=b\nNo arg for -b option\no=? OPTARG=unset\n');
    expect(sh('set -- -z; getopts a o 2>&1; echo "rc=$? o=$o"')).to.equal('Illegal option -z\nrc=0 o=?\n');
  });

  it('getopts stops at -- and at the first operand; a function has its own place', () => {
    expect(sh('set -- -q -- r; while getopts q o; do echo "o=$o"; done; echo OPTIND=$OPTIND; shift $((OPTIND - 1)); echo "rest=$*"')).to.equal('o=q\nOPTIND=3\nrest=r\n');
    expect(sh('f() { getopts a o; echo "f: $o $OPTIND"; }; set -- -a; getopts a o; echo "$o $OPTIND"; f -a; getopts a o; echo "$o $OPTIND"')).to.equal('a 2\nf: a 2\n? 2\n');
  });

  it('set and export -p quote values as dash does; OPTIND and PS4 are set from the start', () => {
    expect(sh(`x="it's"; y=""; set | grep -e "^x=" -e "^y=" -e "^OPTIND=" -e "^PS4="; export x; export -p | grep " x="`)).to.equal(
      "OPTIND='1'\nPS4='+ '\nx='it'\"'\"'s'\ny=''\nexport x='it'\"'\"'s'\n");
    // without PATH in the environment dash has its default, set but not exported
    expect(sh(`env -i /bin/sh -c 'echo $PATH; env'`)).to.equal('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nPWD=/root\n');
  });

  it('set -f turns pathname expansion off; $- lists the options in dash\'s order', () => {
    expect(sh('set -f; echo /e*; set +f; echo /et*; set -ef; echo $-; set +e; echo "[$-]"')).to.equal('/e*\n/etc\nfe\n[f]\n');
  });

  it('set -e does not end the shell for a failing if, while or until condition', () => {
    const r = m.run('set -e; if false; then :; fi; while false; do :; done; until true; do :; done; echo survived; false; echo notreached');
    expect(r.out).to.equal('survived\n');
    expect(r.status).to.equal(1);
  });

  it('env: options end at the first operand, -i/-/-u/-0, assignments, the command run with that environment', () => {
    expect(sh('env /bin/sh -c "echo hi"')).to.equal('hi\n');
    expect(sh('env -i A=1 B=2 env; env - A=1 sh -c \'echo $A $PATH\'')).to.equal('A=1\nB=2\n1 /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n');
    expect(sh('env -i -0 A=1 B=2 | tr "\\0" "|"; echo; env -u HOME env | grep -c ^HOME=')).to.equal('A=1|B=2|\n0\n');
    expect(sh('env -i nonexist 2>/dev/null; echo rc=$?; env -x 2>/dev/null; echo rc=$?; env -u 2>/dev/null; echo rc=$?; env --foo 2>/dev/null; echo rc=$?')).to.equal('rc=127\nrc=125\nrc=125\nrc=125\n');
    expect(sh('env -i nonexist 2>&1; env -x 2>&1; env -u 2>&1; env --foo 2>&1')).to.equal("env: 'nonexist': No such file or directory\n"
      + "env: invalid option -- 'x'\nTry 'env --help' for more information.\nenv: option requires an argument -- 'u'\nTry 'env --help' for more information.\n"
      + "env: unrecognized option '--foo'\nTry 'env --help' for more information.\n");
  });
});
