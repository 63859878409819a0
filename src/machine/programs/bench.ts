/** Benchmark programs from the seeds: block_hasher (pread), dbench-like file load. */
import type { U, ProgramMain } from '../user';
import type { Prog } from '../task';
import { O_CREAT, O_TRUNC, O_WRONLY } from '../user';

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
  /** dbench-like load: create/write/read/unlink files in a client directory */
  dbench: function* (u, argv) {
    const clients = Number(argv[1] ?? 1);
    const loops = Number(argv[2] ?? 20);
    yield* u.mkdir('/tmp/dbench');
    let done = 0;
    const client = (c: number) => function* (cu: U): Prog {
      for (let l = 0; l < loops; l++) {
        const p = `/tmp/dbench/c${c}_${l % 4}`;
        const fd = yield* cu.open(p, O_WRONLY | O_CREAT | O_TRUNC);
        for (let k = 0; k < 4; k++) yield* cu.write(fd, new Uint8Array(16384).fill(65 + k));
        yield* cu.close(fd);
        const rfd = yield* cu.open(p);
        while ((yield* cu.read(rfd, 65536)).ret > 0) { /* read back */ }
        yield* cu.close(rfd);
        yield* cu.stat(p);
        if (l % 4 === 3) yield* cu.unlink(p);
        yield* cu.cpu(20000);
      }
      done++;
      return 0;
    };
    for (let c = 0; c < clients; c++) yield* u.fork(client(c));
    for (let c = 0; c < clients; c++) yield* u.wait();
    yield* u.out(`Throughput ${(clients * loops * 64 / 1024).toFixed(2)} MB/sec  ${clients} clients  ${clients} procs\n`);
    void done;
    return 0;
  },
};
