/**
 * Machine.runAsync: between slices of 50 ms of virtual time it lets Node's event loop run (a
 * terminal, timers, a program's session); once `done()` holds it returns at once, without a turn
 * of the event loop (what `tapsim shell -c true` runs: its shell exits inside the first slice).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { installMaterializers } from '../../src/machine/paths/args';

describe('Machine.runAsync', function () {
  this.timeout(60000);
  /** `sh -c CMD` on a new machine: whether an immediate queued before the run ran during it, and the status */
  const shell = async (cmd: string): Promise<{ turned: boolean; status: number }> => {
    const m = new Machine({ seed: 1 });
    installMaterializers();
    const p = m.procs.spawnShellArgv(['sh', '-c', cmd], () => undefined, () => undefined);
    let turned = false;
    setImmediate(() => { turned = true; });
    await m.runAsync(() => p.exited);
    return { turned, status: p.exitCode };
  };

  it('returns without a turn of the event loop once done', async () => {
    expect(await shell('true')).to.deep.equal({ turned: false, status: 0 });
  });

  it('lets the event loop run between the slices of a longer run', async () => {
    expect(await shell('sleep 0.2; exit 3')).to.deep.equal({ turned: true, status: 3 });
  });
});
