/**
 * AF_UNIX sockets (net/unix.ts): what unix(7) and net/unix/af_unix.c of Linux 6.1 say a program sees
 * (bind makes a socket inode, EADDRINUSE on an existing path; connect: ENOENT for a missing path,
 * ECONNREFUSED for a path that is not a socket or whose socket is closed, EPROTOTYPE across types;
 * a stream carries bytes in order and reads end of file after the peer's close; datagrams keep their
 * boundaries), and glibc's nscd probe as strace shows it on Debian 12 (data/recordings/stat.json.gz:
 * socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3, connect(3, "/var/run/nscd/socket") =
 * -1 ENOENT, close(3)).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog } from '../../src/machine/include/sched';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter } from '../../src/kernel/ftrace';
import { symbolName, lookupAddr } from '../../src/kernel/kallsyms';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

const AF_UNIX = 1, SOCK_STREAM = 1, SOCK_DGRAM = 2;

function install(m: Machine, name: string, main: (u: U, argv: string[]) => Prog): void {
  m.fs.createFile(`/usr/bin/${name}`, 'ELF', 0o755);
  m.procs.programs.set(`/usr/bin/${name}`, main);
}
const text = (d: Uint8Array | undefined): string => Buffer.from(d ?? []).toString();

describe('net/unix: AF_UNIX sockets', function () {
  this.timeout(60000);

  it('stream: bind makes a socket inode, connect/accept, bytes both ways, end of file after close', () => {
    const m = new Machine({ seed: 3 });
    const res: Record<string, unknown> = {};
    install(m, 'upair', function* (u: U): Prog {
      const l = yield* u.socket(AF_UNIX, SOCK_STREAM);
      res.bind = yield* u.bindPath(l, '/tmp/sock');
      res.rebind = yield* u.bindPath(yield* u.socket(AF_UNIX, SOCK_STREAM), '/tmp/sock');
      res.listen = yield* u.listen(l, 5);
      yield* u.fork(function* (cu: U): Prog {
        const s = yield* cu.socket(AF_UNIX, SOCK_STREAM);
        res.connect = yield* cu.connectPath(s, '/tmp/sock');
        res.sent = yield* cu.sendAll(s, 'hello, ');
        res.sent2 = yield* cu.sendAll(s, 'server');
        res.reply = text((yield* cu.recv(s, 100)).data);
        yield* cu.close(s);
        return 0;
      });
      const c = yield* u.accept(l);
      let got = '';
      for (;;) {
        const r = yield* u.read(c, 4);
        if (r.ret <= 0) { res.eof = r.ret; break; }
        got += text(r.data);
        if (got === 'hello, server') yield* u.write(c, 'ok');
      }
      res.got = got;
      return 0;
    });
    const r = m.run('upair; ls -l /tmp/sock');
    expect(r.status).to.equal(0);
    expect(res).to.deep.equal({ bind: 0, rebind: -98, listen: 0, connect: 0, sent: 7, sent2: 6, reply: 'ok', got: 'hello, server', eof: 0 });
    expect(r.out).to.match(/^srwxr-xr-x 1 root root 0 .* \/tmp\/sock\n$/);
  });

  it('connect errors: ENOENT, ECONNREFUSED (not a socket; closed listener), EPROTOTYPE, EINVAL to listen unbound', () => {
    const m = new Machine({ seed: 3 });
    const res: Record<string, number> = {};
    install(m, 'uerr', function* (u: U): Prog {
      const s = yield* u.socket(AF_UNIX, SOCK_STREAM);
      res.missing = yield* u.connectPath(s, '/var/run/nscd/socket');
      res.file = yield* u.connectPath(s, '/etc/passwd');
      res.listenUnbound = yield* u.listen(s);
      const l = yield* u.socket(AF_UNIX, SOCK_STREAM);
      yield* u.bindPath(l, '/tmp/gone');
      yield* u.listen(l);
      const d = yield* u.socket(AF_UNIX, SOCK_DGRAM);
      res.prototype = yield* u.connectPath(d, '/tmp/gone');
      yield* u.close(l);
      res.closed = yield* u.connectPath(s, '/tmp/gone');
      return 0;
    });
    expect(m.run('uerr').status).to.equal(0);
    expect(res).to.deep.equal({ missing: -2, file: -111, listenUnbound: -22, prototype: -91, closed: -111 });
  });

  it('datagrams keep their boundaries; sendto a path or the connected peer', () => {
    const m = new Machine({ seed: 3 });
    const got: string[] = [];
    install(m, 'udg', function* (u: U): Prog {
      const srv = yield* u.socket(AF_UNIX, SOCK_DGRAM);
      yield* u.bindPath(srv, '/tmp/dg');
      const cl = yield* u.socket(AF_UNIX, SOCK_DGRAM);
      yield* u.sendtoPath(cl, 'one', '/tmp/dg');
      yield* u.connectPath(cl, '/tmp/dg');
      yield* u.send(cl, 'two!');
      for (let i = 0; i < 2; i++) got.push(text((yield* u.recv(srv, 100)).data));
      return 0;
    });
    expect(m.run('udg').status).to.equal(0);
    expect(got).to.deep.equal(['one', 'two!']);
  });

  it("stat's nscd probes run through af_unix as on the real kernel (unix_create, unix_stream_connect failing, unix_release)", () => {
    const m = new Machine({ seed: 3 });
    const calls = new Map<string, number>();
    const op = new FtraceOps('unix_ops', (ip, parentIp) => {
      const p = lookupAddr(parentIp);
      const k = `${symbolName(lookupAddr(ip)!.id)}<-${p ? symbolName(p.id) : '?'}`;
      calls.set(k, (calls.get(k) ?? 0) + 1);
    });
    for (const f of ['unix_create', 'unix_stream_connect', 'unix_find_other', 'unix_release', 'unix_release_sock', 'inet_create']) ftraceSetFilter(op, f, false);
    registerFtraceFunction(op);
    const r = m.run('stat /etc/passwd');
    unregisterFtraceFunction(op);
    expect(r.status).to.equal(0);
    // two lookups (the owner, the group), each asking nscd twice (its map, its socket)
    expect(Object.fromEntries(calls)).to.deep.equal({
      'unix_create<-__sock_create': 4, 'unix_stream_connect<-__sys_connect_file': 4, 'unix_find_other<-unix_stream_connect': 4,
      'unix_release_sock<-unix_stream_connect': 4, 'unix_release<-__sock_release': 4, 'unix_release_sock<-unix_release': 4,
    });
  });

  it("the nscd connect runs the real kernel's recorded trees of a failing connect (move_addr_to_kernel, the LSM hooks, unix_create1's sock)", () => {
    // data/recordings/ls-l, stat, ps, tar: each connect(AF_UNIX, "/var/run/nscd/socket") = -ENOENT copies the
    // address in, asks the LSMs, makes the new sock and the request's skb, fails in unix_find_other, frees both
    const m = new Machine({ seed: 3 });
    const fns = ['move_addr_to_kernel', 'security_socket_connect', 'apparmor_socket_connect', 'unix_create1', 'sock_wmalloc', 'unix_find_other', 'sk_free'];
    const calls = new Map<string, number>(fns.map((f) => [f, 0]));
    const op = new FtraceOps('nscd_connect', (ip) => { const f = symbolName(lookupAddr(ip)!.id); calls.set(f, calls.get(f)! + 1); });
    for (const f of fns) ftraceSetFilter(op, f, false);
    registerFtraceFunction(op);
    let r: { status: number } = { status: -1 };
    try { r = m.run('stat /etc/passwd'); } finally { unregisterFtraceFunction(op); }
    expect(r.status).to.equal(0);
    // (unix_create1: the socket's own sock, unix_create's, and the connect's new one: 8, as the stat recording's)
    expect(Object.fromEntries(calls)).to.deep.equal({ ...Object.fromEntries(fns.map((f) => [f, 4])), unix_create1: 8 });
  });

  it('stap: a failed connect frees its request skb with kfree_skb(): skb:kfree_skb at unix_stream_connect, NOT_SPECIFIED', async () => {
    // the udp and tcp-http recordings: nc's two nscd connects each kfree_skb_reason(skb_release_head_state(sock_wfree ...) ...),
    // 2 kfree_skb events in their events runs
    const r = await stapOnMachine(compile(`
      global drop
      probe kernel.trace("kfree_skb") { drop[execname(), symname($location), $reason] <<< 1 }
      probe end { foreach ([e, l, why] in drop) printf("%s %s reason=%d %d\\n", e, l, why, @count(drop[e, l, why])) }`),
    'stat /etc/passwd', { commandOutput: false });
    resetKernel();
    expect(r.err).to.equal('');
    expect(r.out).to.equal('stat unix_stream_connect reason=1 4\n');
  });
});
