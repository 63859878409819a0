import { expect } from 'chai';
import * as cp from 'child_process';
import * as path from 'path';

const CLI = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

describe('cli: -i with a listing switch', () => {
  it('lists and exits, as stap 4.8 does, instead of starting the interactive mode', () => {
    const r = cp.spawnSync(process.execPath, [CLI, '-i', '-l', 'begin'], { input: '', encoding: 'utf8', timeout: 60000 });
    expect(r.stdout).to.equal('begin\n');
    expect(r.status).to.equal(0);
  });
});
