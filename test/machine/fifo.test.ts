/**
 * Named pipes (fs/pipe.ts fifo_open, fs/namei.ts mknodat) and /proc/PID/wchan (fs/proc_pid.ts), as
 * fifo(7), open(2), mknod(2), proc(5) and Linux 6.1's fs/pipe.c say: an O_RDONLY open waits for a
 * writer and an O_WRONLY open for a reader (asleep in fifo_open's wait_for_partner, which /proc/PID/wchan
 * names: an out-of-line function of Debian's 6.1, and what this host's kernel shows), O_NONBLOCK (the read side opens, the write side fails with ENXIO without a
 * reader), O_RDWR never waits; every opener shares the inode's one pipe; EOF once the last writer
 * closed, EPIPE and SIGPIPE once the last reader did; a signal ends a waiting open with EINTR.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog, Op, SysResult } from '../../src/machine/include/sched';

type G<T> = Generator<Op, T, SysResult>;

const O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_NONBLOCK = 0o4000;
const S_IFIFO = 0o10000, S_IFCHR = 0o20000, S_IFDIR = 0o40000;
const ENOENT = 2, EINTR = 4, ENXIO = 6, EBADF = 9, EAGAIN = 11, EEXIST = 17, EINVAL = 22, EPERM = 1, EPIPE = 32;
const SIGPIPE = 13, SIGUSR1 = 10;

function install(m: Machine, name: string, main: (u: U, argv: string[]) => Prog): void {
  m.fs.createFile(`/usr/bin/${name}`, 'ELF', 0o755);
  m.procs.programs.set(`/usr/bin/${name}`, main);
}
const text = (d: Uint8Array | undefined): string => Buffer.from(d ?? []).toString();
function* readFile(u: U, p: string): G<string> {
  const fd = yield* u.open(p);
  if (fd < 0) return `error ${fd}`;
  const r = yield* u.read(fd, 4096);
  yield* u.close(fd);
  return text(r.data);
}
function* mkfifo(u: U, p: string, mode = 0o644): G<number> {
  return (yield* u.sys('mknodat', [-100, p, S_IFIFO | mode, 0])).ret;
}

describe('fs/pipe: FIFOs (fifo_open) and /proc/PID/wchan', function () {
  this.timeout(60000);

  it('a reader waits in wait_for_partner for a writer, the writer\'s open wakes it; the bytes, then EOF at the writer\'s close', () => {
    const m = new Machine({ seed: 2 });
    const log: string[] = [];
    install(m, 'fifo1', function* (u: U): Prog {
      log.push(`mknod ${yield* mkfifo(u, '/tmp/f')}`);
      const child = yield* u.fork(function* (cu: U): Prog {
        const fd = yield* cu.open('/tmp/f', O_RDONLY);
        log.push(`reader opened ${fd >= 0}`);
        let got = '';
        for (;;) {
          const r = yield* cu.read(fd, 100);
          if (r.ret <= 0) { log.push(`reader eof ${r.ret}`); break; }
          got += text(r.data);
        }
        log.push(`reader got ${got}`);
        return 0;
      });
      yield* u.nanosleep(20e6);
      const stat = yield* readFile(u, `/proc/${child}/stat`);
      log.push(`child waits in ${yield* readFile(u, `/proc/${child}/wchan`)} (${stat.split(' ')[2]}), task/ too: ${yield* readFile(u, `/proc/${child}/task/${child}/wchan`)}`);
      log.push(`my wchan ${yield* readFile(u, '/proc/self/wchan')}`);
      const fd = yield* u.open('/tmp/f', O_WRONLY);
      log.push(`writer opened ${fd >= 0}`);
      yield* u.write(fd, 'hello ');
      yield* u.nanosleep(5e6);
      yield* u.write(fd, 'fifo');
      yield* u.close(fd);
      yield* u.wait(child);
      return 0;
    });
    expect(m.run('fifo1').status).to.equal(0);
    // the writer's and the woken reader's lines in their own orders (which of the two logs first after the
    // writer's open follows the CPUs' interleaving: the reader's wakeup is its own CPU's wake list IPI)
    const writer = ['mknod 0', 'child waits in wait_for_partner (S), task/ too: wait_for_partner', 'my wchan 0', 'writer opened true'];
    expect(log.filter((l) => writer.includes(l))).to.deep.equal(writer);
    expect(log.filter((l) => !writer.includes(l))).to.deep.equal(['reader opened true', 'reader eof 0', 'reader got hello fifo']);
    expect(log.indexOf('reader opened true')).to.be.greaterThan(log.indexOf('my wchan 0'));
  });

  it('a writer waits for a reader; O_NONBLOCK: the reader opens at once (EOF without a writer), the writer fails with ENXIO', () => {
    const m = new Machine({ seed: 3 });
    const log: string[] = [];
    install(m, 'fifo2', function* (u: U): Prog {
      yield* mkfifo(u, '/tmp/f');
      log.push(`nonblock writer ${yield* u.open('/tmp/f', O_WRONLY | O_NONBLOCK)}`);
      const r = yield* u.open('/tmp/f', O_RDONLY | O_NONBLOCK);
      log.push(`nonblock reader ${r >= 0}, read ${(yield* u.read(r, 10)).ret}`);
      const child = yield* u.fork(function* (cu: U): Prog {
        const fd = yield* cu.open('/tmp/f', O_WRONLY);
        log.push(`writer opened, wrote ${(yield* cu.write(fd, 'xyz')).ret}`);
        return 0;
      });
      // the O_NONBLOCK reader is a reader: the writer does not wait
      yield* u.wait(child);
      log.push(`read ${text((yield* u.read(r, 10)).data)}, then ${(yield* u.read(r, 10)).ret}`);
      yield* u.close(r);
      // no reader now: a blocking writer waits until one opens
      const child2 = yield* u.fork(function* (cu: U): Prog {
        const fd = yield* cu.open('/tmp/f', O_WRONLY);
        log.push(`writer 2 opened ${fd >= 0}`);
        yield* cu.write(fd, 'second');
        return 0;
      });
      yield* u.nanosleep(20e6);
      log.push(`writer 2 waits in ${yield* readFile(u, `/proc/${child2}/wchan`)}`);
      const fd = yield* u.open('/tmp/f', O_RDONLY);
      log.push(`reader opened ${fd >= 0}`);
      yield* u.wait(child2);
      log.push(`read ${text((yield* u.read(fd, 100)).data)}, then ${(yield* u.read(fd, 100)).ret}`);
      // a read with the file's O_NONBLOCK and a writer present but nothing to read: EAGAIN
      const w = yield* u.open('/tmp/f', O_WRONLY | O_NONBLOCK);
      const rn = yield* u.open('/tmp/f', O_RDONLY | O_NONBLOCK);
      log.push(`empty nonblock read ${(yield* u.read(rn, 10)).ret}`);
      for (const x of [fd, w, rn]) yield* u.close(x);
      return 0;
    });
    expect(m.run('fifo2').status).to.equal(0);
    // the reader's open and the writer it woke return in either order (two CPUs)
    expect(log.slice(0, 5)).to.deep.equal([
      `nonblock writer ${-ENXIO}`,
      'nonblock reader true, read 0',
      'writer opened, wrote 3',
      'read xyz, then 0',
      'writer 2 waits in wait_for_partner',
    ]);
    expect(log.slice(5, 7).sort()).to.deep.equal(['reader opened true', 'writer 2 opened true']);
    expect(log.slice(7)).to.deep.equal(['read second, then 0', `empty nonblock read ${-EAGAIN}`]);
  });

  it('O_RDWR never waits and is both ends; the pipe goes with the last file (its unread bytes too); EBADF for the wrong side', () => {
    const m = new Machine({ seed: 4 });
    const log: string[] = [];
    install(m, 'fifo3', function* (u: U): Prog {
      yield* mkfifo(u, '/tmp/f');
      const fd = yield* u.open('/tmp/f', O_RDWR);
      log.push(`rdwr ${fd >= 0} wrote ${(yield* u.write(fd, 'loop')).ret} read ${text((yield* u.read(fd, 10)).data)}`);
      yield* u.write(fd, 'left behind');
      yield* u.close(fd);
      const r = yield* u.open('/tmp/f', O_RDONLY | O_NONBLOCK);
      log.push(`after the last close: read ${(yield* u.read(r, 100)).ret}`);
      log.push(`write to the read side ${(yield* u.write(r, 'x')).ret}`);
      const w = yield* u.open('/tmp/f', O_WRONLY | O_NONBLOCK);
      log.push(`read of the write side ${(yield* u.read(w, 1)).ret}`);
      return 0;
    });
    expect(m.run('fifo3').status).to.equal(0);
    expect(log).to.deep.equal(['rdwr true wrote 4 read loop', 'after the last close: read 0', `write to the read side ${-EBADF}`, `read of the write side ${-EBADF}`]);
  });

  it('the last reader gone: EPIPE with SIGPIPE ignored, death by SIGPIPE (status 141 in the shell) otherwise', () => {
    const m = new Machine({ seed: 5 });
    const log: string[] = [];
    for (const [name, ignore] of [['fifopipe', true], ['fifokill', false]] as const) {
      install(m, name, function* (u: U): Prog {
        if (ignore) yield* u.sigaction(SIGPIPE, 'ignore');
        const r = yield* u.open('/tmp/p', O_RDONLY | O_NONBLOCK);
        const w = yield* u.open('/tmp/p', O_WRONLY);
        log.push(`${name} wrote ${(yield* u.write(w, 'a')).ret}`);
        yield* u.close(r);
        log.push(`${name} wrote after close ${(yield* u.write(w, 'b')).ret}`);
        return 0;
      });
    }
    expect(m.run('mkfifo /tmp/p; fifopipe; echo $?; fifokill; echo $?').out).to.equal('0\n141\n');
    expect(log).to.deep.equal(['fifopipe wrote 1', `fifopipe wrote after close ${-EPIPE}`, 'fifokill wrote 1']);
  });

  it('poll: an O_NONBLOCK reader opened without a writer sees no POLLHUP until a writer came and went (f_version)', () => {
    const m = new Machine({ seed: 9 });
    const log: number[] = [];
    install(m, 'fifopoll', function* (u: U): Prog {
      const poll = function* (fd: number): G<number> {
        const r = yield* u.sys('poll', [0, 1, 0], { pfd: fd });
        return (r.info as { revents: number[] }).revents[0];
      };
      yield* mkfifo(u, '/tmp/f');
      const r = yield* u.open('/tmp/f', O_RDONLY | O_NONBLOCK);
      log.push(yield* poll(r));
      const w = yield* u.open('/tmp/f', O_WRONLY);
      yield* u.write(w, 'x');
      log.push(yield* poll(r));
      yield* u.read(r, 1);
      yield* u.close(w);
      log.push(yield* poll(r));
      return 0;
    });
    expect(m.run('fifopoll').status).to.equal(0);
    // nothing ready; POLLIN; POLLHUP (the writer closed)
    expect(log).to.deep.equal([0, 0x1, 0x10]);
  });

  it('a signal ends a waiting open with EINTR and takes its side back (a writer then finds no reader)', () => {
    const m = new Machine({ seed: 6 });
    const log: string[] = [];
    install(m, 'fifo5', function* (u: U): Prog {
      yield* mkfifo(u, '/tmp/f');
      const child = yield* u.fork(function* (cu: U): Prog {
        yield* cu.catchSignal(SIGUSR1, () => { log.push('handler'); });
        log.push(`open ${yield* cu.open('/tmp/f', O_RDONLY)}`);
        return 0;
      });
      yield* u.nanosleep(20e6);
      yield* u.kill(child, SIGUSR1);
      yield* u.wait(child);
      log.push(`writer ${yield* u.open('/tmp/f', O_WRONLY | O_NONBLOCK)}`);
      return 0;
    });
    expect(m.run('fifo5').status).to.equal(0);
    expect(log).to.deep.equal(['handler', `open ${-EINTR}`, `writer ${-ENXIO}`]);
  });

  it('mknodat(2): FIFOs with the umask, EEXIST, ENOENT, EPERM for a directory, EINVAL; a device node opens its driver, one without ENXIO', () => {
    const m = new Machine({ seed: 7 });
    const res: Record<string, number> = {};
    install(m, 'mk', function* (u: U): Prog {
      const mk = function* (p: string, mode: number, dev = 0): Prog { return (yield* u.sys('mknodat', [-100, p, mode, dev])).ret; };
      res.fifo = yield* mk('/tmp/a', S_IFIFO | 0o666);
      res.again = yield* mk('/tmp/a', S_IFIFO | 0o666);
      res.noent = yield* mk('/tmp/no/a', S_IFIFO | 0o666);
      res.dir = yield* mk('/tmp/d', S_IFDIR | 0o755);
      res.bad = yield* mk('/tmp/b', 0o170000 | 0o644);
      res.reg = yield* mk('/tmp/r', 0o644);
      res.null = yield* mk('/tmp/null', S_IFCHR | 0o666, (1 << 8) | 3);
      res.nodrv = yield* mk('/tmp/nodrv', S_IFCHR | 0o666, (250 << 8) | 1);
      const n = yield* u.open('/tmp/null', O_RDWR);
      res.nullWrite = (yield* u.write(n, 'gone')).ret;
      res.nullRead = (yield* u.read(n, 10)).ret;
      res.nodrvOpen = yield* u.open('/tmp/nodrv', O_RDONLY);
      return 0;
    });
    const r = m.run('mk; ls -l /tmp/a /tmp/r /tmp/null');
    expect(res).to.deep.equal({
      fifo: 0, again: -EEXIST, noent: -ENOENT, dir: -EPERM, bad: -EINVAL, reg: 0, null: 0, nodrv: 0,
      nullWrite: 4, nullRead: 0, nodrvOpen: -ENXIO,
    });
    expect(r.out.split('\n').map((l) => l.split(' ')[0])).to.deep.equal(['prw-r--r--', 'crw-r--r--', '-rw-r--r--', '']);
    expect(r.out).to.contain(' 1, 3 ');
  });

  it('/proc/PID/wchan: the sleep a task is in, "0" for a running task and a zombie, no newline', () => {
    const m = new Machine({ seed: 8 });
    // dash on this host: sleep(1) in clock_nanosleep is in hrtimer_nanosleep, cat reading its own runs, the
    // shell waiting for cat (wait4) is in do_wait
    // (the shell waits 10 ms first: sleep's exec and cat's fork and exec run at the same time on two CPUs,
    // and which of them gets there first is a race on the real box as well)
    const r = m.run('sleep 1 & p=$!; sleep 0.01; cat /proc/$p/wchan; echo; cat /proc/self/wchan; echo; cat /proc/$$/wchan; echo "|"; kill $p');
    expect(r.out).to.equal('hrtimer_nanosleep\n0\ndo_wait|\n');
    // a child that exited and was not waited for: a zombie, its stack gone (get_wchan finds nothing)
    const log: string[] = [];
    install(m, 'zomb', function* (u: U): Prog {
      const child = yield* u.fork(function* (): Prog { return 3; });
      yield* u.nanosleep(20e6);
      log.push((yield* readFile(u, `/proc/${child}/stat`)).split(' ')[2], yield* readFile(u, `/proc/${child}/wchan`));
      yield* u.wait(child);
      return 0;
    });
    expect(m.run('zomb').status).to.equal(0);
    expect(log).to.deep.equal(['Z', '0']);
  });
});
