/**
 * Flight recorder mode with an output file (`stap -F -o FILE`, stap(1): "run staprun in
 * background as a daemon and show its pid"): stap 4.8's stapio calls daemon(0, 1) and prints the
 * daemon's pid as "%d\n" on stdout (init_stapio in /usr/lib/systemtap/stapio), and `stap` exits 0
 * while the session keeps writing FILE (rotated by -S) until a signal ends it.
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (cond()) return true;
  return cond();
}

describe('stap -F -o: flight recorder daemon', function () {
  this.timeout(120000);

  it('prints the daemon pid and exits 0; the daemon writes the -S rotated file until SIGTERM ends it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flightrec-'));
    const r = spawnSync(process.execPath, [cli, '-u', '-F', '-S', '1,2', '-o', 'fr.out', '-we', 'probe timer.ms(200) { log("hey!") }'],
      { cwd: dir, encoding: 'latin1', timeout: 60000 });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^[0-9]+\n$/);
    expect(r.stderr).to.equal('');
    const pid = Number(r.stdout);
    try {
      expect(pid).to.not.equal(r.pid);
      const file = path.join(dir, 'fr.out.0');
      // the daemon goes on in the background (paced to the wall clock: a signal ends it)
      const grew = await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'latin1').split('\n').length > 3, 60000);
      expect(grew, 'the daemon writes its output file').to.equal(true);
      expect(fs.readFileSync(file, 'latin1')).to.match(/^(hey!\n)+/);
      expect(alive(pid)).to.equal(true);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
    }
    expect(await waitFor(() => !alive(pid), 30000), 'SIGTERM ends the daemon').to.equal(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without -F, -o runs in the foreground', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flightrec-'));
    const r = spawnSync(process.execPath, [cli, '-o', 'fr.out', '-e', 'probe begin { log("once") exit() }'],
      { cwd: dir, encoding: 'latin1', timeout: 60000 });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('');
    expect(fs.readFileSync(path.join(dir, 'fr.out'), 'latin1')).to.equal('once\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
