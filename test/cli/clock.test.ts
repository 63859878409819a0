/**
 * The clock of a run, as a user sees it: a run that ends by itself (-T, -c, exit()) runs
 * simulated time as fast as it can; one only a signal ends follows the wall clock;
 * --realtime / --no-realtime choose (README, "Time").
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'latin1', timeout: 90000, env });
}

describe('stap: simulated time and the wall clock', function () {
  this.timeout(120000);

  it('a run ended by -T, -c or exit() does not wait for the wall clock', () => {
    for (const args of [['-T', '30'], ['-e', 'probe timer.s(30) { exit() }']]) {
      const script = args[0] === '-e' ? [] : ['-e', 'probe timer.s(10) { printf("%d\\n", gettimeofday_s()) }'];
      const t0 = Date.now();
      const r = stap([...args, ...script], os.tmpdir());
      expect(r.status, r.stderr).to.equal(0);
      expect(Date.now() - t0, args.join(' ')).to.be.below(20000);
    }
  });

  it('--realtime paces a -T run to the wall clock', () => {
    const t0 = Date.now();
    const r = stap(['--realtime', '-T', '1.5', '-e', 'probe timer.ms(500) { printf("%d\\n", gettimeofday_ms()) }'], os.tmpdir());
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('1763700000500\n1763700001000\n1763700001500\n');
    expect(Date.now() - t0).to.be.at.least(1400);
  });

  it('a run only a signal ends follows the wall clock (SIGINT after ~2 s has seen ~2 simulated seconds)', async () => {
    const child = spawn(process.execPath, [cli, '-e', 'global n probe timer.ms(100) { n++ } probe end { printf("%d\\n", n) }']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    // wait until the session runs (its first line would come only at the end): start-up varies
    await new Promise((r) => setTimeout(r, 4000));
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 2000));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).to.equal(0);
    const n = Number(out.trim());
    const wall = (Date.now() - t0) / 1000 + 4;
    // ticks of 100 ms over the run: no more than the wall clock allows (not millions)
    expect(n).to.be.above(0);
    expect(n).to.be.at.most(Math.ceil(wall * 10) + 2);
  });
});
