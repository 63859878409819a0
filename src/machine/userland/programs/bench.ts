/** Benchmark programs from the seeds: block_hasher (pread); dbench, tbench and tbench_srv are dbench.ts. */
import type { U, ProgramMain } from '../../process/user';
import type { Prog } from '../../include/sched';

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
};
