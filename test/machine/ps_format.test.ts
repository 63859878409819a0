/**
 * ps's output formats as procps-ng 4.0.2 (Debian 12) prints them. The expected lines are the real ps
 * of this Debian 12 host (procps-ng 4.0.2, pid_max 32768: PID columns 5 wide, given here as `pid:5`),
 * run on its pid 1 (`ps -p 1 -l`, `ps -p 1 -o user:3,pid`, ...); on the machine, whose pid_max is the
 * guest's 4194304, PID columns are 7 wide, as the recorded `ps aux` shows.
 */
import { expect } from 'chai';
import { parseFormat, headerLine, rowLine, FORMATS, type PsProc } from '../../src/machine/userland/programs/ps_format';
import { Machine } from '../../src/machine/machine';

// the host's pid 1 when the lines were taken: nice -10, 13 threads, started Nov 27 05:39:53 2026,
// 5:43 of CPU time 18:47:01 later
const start = Date.UTC(2026, 10, 27, 5, 39, 53) / 1000;
const host: PsProc = {
  pid: 1, ppid: 0, pgid: 0, sid: 0, tpgid: -1, tty: '?', state: 'S', flags: 0x400100, minflt: 670193, majflt: 0,
  ticks: 34300, priority: 10, nice: -10, nlwp: 13, psr: 0, policy: 0, rtprio: 0, start, vszKb: 45940, rssKb: 15644,
  ruid: 0, euid: 0, rgid: 0, egid: 0, ruser: 'root', euser: 'root', egroup: 'root', comm: 'process_api',
  args: '/process_api --firecracker-init --addr 0.0.0.0:2024', wchan: 'ep_poll',
};
const ctx = { now: start + 18 * 3600 + 47 * 60 + 1, memKb: 65840000 };
const five = (f: string): string => f.replace(/\b(pid|ppid|pgid|sid|tpgid)\b/g, '$1:5');

describe('ps formats (procps-ng 4.0.2 output.c)', () => {
  it('-l: the columns that overflow take their space from the next (ADDR SZ)', () => {
    const cols = parseFormat([five(FORMATS.l)]);
    expect(headerLine(cols)).to.equal('F S   UID   PID  PPID  C PRI  NI ADDR SZ WCHAN  TTY          TIME CMD');
    expect(rowLine(cols, { ...host, vszKb: 45940 }, ctx)).to.equal('4 S     0     1     0  0  70 -10 - 11485 ep_pol ?        00:05:43 process_api');
  });

  it('u, -f, -j and a user format with widths, truncated names and headers', () => {
    expect(headerLine(parseFormat([five(FORMATS.u)]))).to.equal('USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND');
    expect(rowLine(parseFormat([five(FORMATS.u)]), host, ctx)).to.equal('root         1  0.5  0.0  45940 15644 ?        S<l  Nov27   5:43 /process_api --firecracker-init --addr 0.0.0.0:2024');
    expect(headerLine(parseFormat([five(FORMATS.f)]))).to.equal('UID        PID  PPID  C STIME TTY          TIME CMD');
    expect(headerLine(parseFormat([five(FORMATS.j)]))).to.equal('  PID  PGID   SID TTY          TIME CMD');
    const c = parseFormat(['user:3,pid:5']);
    expect([headerLine(c), rowLine(c, host, ctx)]).to.deep.equal(['USER  PID', 'ro+     1']);
    const x = parseFormat(['pid:3=X,comm']);
    expect([headerLine(x), rowLine(x, host, ctx)]).to.deep.equal(['  X COMMAND', '  1 process_api']);
  });

  it('each specifier\'s header, width and value (ps -p 1 -o pid,SPEC,pid on the host)', () => {
    const row = (spec: string): [string, string] => {
      const cols = parseFormat([`pid:5,${five(spec)},pid:5`]);
      return [headerLine(cols), rowLine(cols, host, ctx)];
    };
    expect(row('etime')).to.deep.equal(['  PID     ELAPSED   PID', '    1    18:47:01     1']);
    expect(row('etimes')).to.deep.equal(['  PID ELAPSED   PID', '    1   67621     1']);
    expect(row('start')).to.deep.equal(['  PID  STARTED   PID', '    1 05:39:53     1']);
    expect(row('lstart')).to.deep.equal(['  PID                  STARTED   PID', '    1 Fri Nov 27 05:39:53 2026     1']);
    expect(row('stime')).to.deep.equal(['  PID STIME   PID', '    1 Nov27     1']);
    expect(row('bsdstart')).to.deep.equal(['  PID  START   PID', '    1  05:39     1']);
    expect(row('time')).to.deep.equal(['  PID     TIME   PID', '    1 00:05:43     1']);
    expect(row('fname')).to.deep.equal(['  PID COMMAND    PID', '    1 process_     1']);
    expect(row('args')).to.deep.equal(['  PID COMMAND                       PID', '    1 /process_api --firecracker-     1']);
    expect(row('min_flt')).to.deep.equal(['  PID  MINFL   PID', '    1 670193     1']);
    expect(row('cls')).to.deep.equal(['  PID CLS   PID', '    1  TS     1']);
    expect(row('rtprio')).to.deep.equal(['  PID RTPRIO   PID', '    1      -     1']);
    expect(row('pri')).to.deep.equal(['  PID PRI   PID', '    1  29     1']);
    expect(row('f')).to.deep.equal(['  PID F   PID', '    1 4     1']);
    expect(row('stat')).to.deep.equal(['  PID STAT   PID', '    1 S<l      1']);
    expect(row('tpgid')).to.deep.equal(['  PID TPGID   PID', '    1    -1     1']);
    expect(row('sz')).to.deep.equal(['  PID    SZ   PID', '    1 11485     1']);
  });

  it('%CPU and %MEM are truncated tenths (pr_pcpu, pr_pmem)', () => {
    const cols = parseFormat(['%cpu,%mem']);
    // 1.63 and 2.7 tenths: 0.1 and 0.2 (the host's pid 15 and 18000)
    expect(rowLine(cols, { ...host, ticks: 163, rssKb: 177300, start: ctx.now - 1000 }, ctx)).to.equal(' 0.1  0.2');
  });
});

describe('ps on the machine: options', function () {
  this.timeout(60000);
  const m = new Machine({ cpus: 4, seed: 1 });
  const run = (cmd: string): { out: string; err: string; status: number } => {
    const r = m.run(cmd);
    return { out: r.out, err: (r as { err?: string }).err ?? '', status: (r as { status?: number }).status ?? 0 };
  };

  it('-eo with --sort: the services by resident set, largest first (journald, systemd, sshd)', () => {
    expect(run('ps -eo pid,comm,rss --sort=-rss | head -4').out).to.equal('    PID COMMAND           RSS\n    174 systemd-journal 12072\n      1 systemd         11460\n    216 sshd             9304\n');
  });

  it('-p and -o with empty headers, -u, -C, --ppid, and exit status 1 when nothing is listed', () => {
    expect(run('ps -o pid= -p 1').out).to.equal('      1\n');
    expect(run('ps -C nginx -o pid=,user=').out).to.equal('    211 root\n    212 www-data\n    213 www-data\n    214 www-data\n    215 www-data\n');
    expect(run('ps --ppid 211 --no-headers -o pid').out.split('\n').filter(Boolean)).to.deep.equal(['    212', '    213', '    214', '    215']);
    expect(run('ps -u www-data -o pid= | wc -l').out).to.equal('4\n');
    expect(run('ps -p 99999; echo $?').out).to.equal('    PID TTY          TIME CMD\n1\n');
  });

  it('an unknown option or specifier: procps\' error and usage, exit status 1', () => {
    const r = m.run('ps -o bogus 2>&1; echo $?');
    expect(r.out).to.match(/^error: unknown user-defined format specifier "bogus"\n\nUsage:\n ps \[options\]\n/);
    expect(r.out).to.match(/For more details see ps\(1\)\.\n1\n$/);
    expect(m.run('ps --bogus 2>&1 | head -1').out).to.equal('error: unknown gnu long option\n');
  });
});
