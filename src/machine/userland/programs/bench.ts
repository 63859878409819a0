/** Benchmark programs from the seeds: block_hasher (pread), tbench and tbench_srv (dbench: dbench.ts). */
import type { U, ProgramMain } from '../../process/user';
import type { Prog } from '../../include/sched';

const TBENCH_PORT = 7003;
const AF_INET = 2, SOCK_STREAM = 1, ECONNREFUSED = 111;
const u32 = (b: Uint8Array, o: number) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;

/** tbench_srv: accept loopback connections, one forked handler each: read a request, send the reply. */
function* tbenchServer(u: U, port: number): Prog {
  const l = yield* u.socket(AF_INET, SOCK_STREAM);
  if ((yield* u.bind(l, port)) < 0) { yield* u.err(`tbench_srv: bind failed: Address already in use\n`); return 1; }
  yield* u.listen(l, 64);
  for (;;) {
    const c = yield* u.accept(l);
    if (c < 0) { if (c === -4) return 0; continue; }
    yield* u.fork(function* (cu: U): Prog {
      yield* cu.close(l);
      for (;;) {
        const h = yield* cu.recvAll(c, 8);
        if (h.length < 8) break;
        const reqLen = u32(h, 0), respLen = u32(h, 4);
        if (reqLen) yield* cu.recvAll(c, reqLen);
        yield* cu.cpu(3000 + reqLen / 4);
        yield* cu.sendAll(c, new Uint8Array(respLen).fill(0x5a));
      }
      yield* cu.close(c);
      return 0;
    });
    yield* u.close(c);
    // reap finished handlers
    for (;;) { const [r] = yield* u.wait(-1, true); if (r <= 0) break; }
  }
}

export const benchPrograms: Record<string, ProgramMain> = {
  /** block_hasher -d DEV -b BS -t THREADS -n N: threads pread N blocks each and hash them */
  block_hasher: function* (u, argv) {
    let dev = '/dev/sda', bs = 1048576, threads = 1, n = 1;
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i];
      const v = (k: string) => (a.length > 2 ? a.slice(2) : argv[++i]) ?? k;
      if (a.startsWith('-d')) dev = v(dev);
      else if (a.startsWith('-b')) bs = Number(v('1048576'));
      else if (a.startsWith('-t')) threads = Number(v('1'));
      else if (a.startsWith('-n')) n = Number(v('1'));
    }
    const fd = yield* u.open(dev);
    if (fd < 0) { yield* u.err(`Failed to open ${dev}\n`); return 1; }
    let done = 0;
    const worker = (idx: number) => function* (tu: U): Prog {
      for (let k = 0; k < n; k++) {
        const off = (idx * n + k) * bs;
        const r = yield* tu.pread(fd, bs, off);
        if (r.ret <= 0) break;
        yield* tu.cpu(bs * 2); // hashing ~0.5 GB/s
      }
      done++;
      return 0;
    };
    for (let i = 1; i < threads; i++) yield* u.thread(worker(i));
    yield* worker(0)(u);
    while (done < threads) yield* u.nanosleep(1000000);
    yield* u.close(fd);
    return 0;
  },
  tbench_srv: function* (u, argv) {
    return yield* tbenchServer(u, Number(argv[1] ?? TBENCH_PORT));
  },
  /**
   * tbench NPROCS [LOOPS]: dbench's network half. NPROCS clients connect to tbench_srv on
   * 127.0.0.1:7003 (started here when nothing listens) and run request/reply exchanges.
   */
  tbench: function* (u, argv) {
    const args = argv.slice(1).filter((a) => !a.startsWith('-'));
    const nprocs = Math.max(1, Number(args[0] ?? 1) || 1);
    const loops = Math.max(1, Number(args[1] ?? 50) || 50);
    let srv = 0;
    // is a server there already?
    const probe = yield* u.socket(AF_INET, SOCK_STREAM);
    const rc = yield* u.connect(probe, TBENCH_PORT);
    yield* u.close(probe);
    if (rc === -ECONNREFUSED) {
      srv = yield* u.fork(function* (su: U): Prog {
        const r = yield* su.exec('/usr/bin/tbench_srv', ['tbench_srv']);
        return r < 0 ? 127 : 0;
      });
    }
    // dbench's start-up: each client connects (nb_setup), reports on the barrier pipe and waits for
    // the go byte; the clock starts when all are connected, so set-up is not in the throughput
    const [readyR, readyW] = yield* u.pipe();
    const [goR, goW] = yield* u.pipe();
    const stats = { bytes: 0, maxLat: 0 };
    const client = (k: number) => function* (cu: U): Prog {
      yield* cu.close(readyR);
      yield* cu.close(goW);
      let fd = -1;
      // a server started just now may not listen yet: retry a refused connect after 1 ms
      for (let tries = 0; tries < 1000; tries++) {
        fd = yield* cu.socket(AF_INET, SOCK_STREAM);
        const rc = yield* cu.connect(fd, TBENCH_PORT);
        if (rc === 0) break;
        yield* cu.close(fd);
        fd = -1;
        if (rc !== -ECONNREFUSED) break;
        yield* cu.nanosleep(1e6);
      }
      yield* cu.write(readyW, fd < 0 ? 'x' : 'r');
      yield* cu.close(readyW);
      if (fd < 0) { yield* cu.err(`client ${k} failed to start\n`); return 1; }
      yield* cu.read(goR, 1);
      yield* cu.close(goR);
      let x = (k + 1) * 2654435761 >>> 0;
      const next = () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x; };
      for (let l = 0; l < loops; l++) {
        const reqLen = 64 + (next() % 1024);
        const respLen = next() % 4 === 0 ? 65536 : 16 + (next() % 4096);
        const msg = new Uint8Array(8 + reqLen);
        msg.set([reqLen >>> 24, (reqLen >> 16) & 255, (reqLen >> 8) & 255, reqLen & 255, respLen >>> 24, (respLen >> 16) & 255, (respLen >> 8) & 255, respLen & 255]);
        const s0 = cu.m.now;
        yield* cu.sendAll(fd, msg);
        const got = yield* cu.recvAll(fd, respLen);
        const lat = cu.m.now - s0;
        if (lat > stats.maxLat) stats.maxLat = lat;
        stats.bytes += msg.length + got.length;
        yield* cu.cpu(5000);
      }
      yield* cu.close(fd);
      return 0;
    };
    yield* u.out(`tbench: ${nprocs} clients, server 127.0.0.1:${TBENCH_PORT}, ${loops} loops\n`);
    for (let c = 0; c < nprocs; c++) yield* u.fork(client(c));
    yield* u.close(readyW);
    yield* u.close(goR);
    let ready = 0;
    while (ready < nprocs) { const r = yield* u.read(readyR, nprocs - ready); if (r.ret <= 0) break; ready += r.ret; }
    yield* u.close(readyR);
    const t0 = u.m.now;
    yield* u.write(goW, new Uint8Array(nprocs));
    yield* u.close(goW);
    for (let c = 0; c < nprocs; c++) yield* u.wait(-1);
    const secs = Math.max(1e-9, (u.m.now - t0) / 1e9);
    if (srv > 0) { yield* u.kill(srv, 15); yield* u.wait(srv); }
    yield* u.out(`Throughput ${(stats.bytes / 1048576 / secs).toFixed(4)} MB/sec  ${nprocs} clients  ${nprocs} procs  max_latency=${(stats.maxLat / 1e6).toFixed(3)} ms\n`);
    return 0;
  },
};
