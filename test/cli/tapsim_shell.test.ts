/**
 * `tapsim shell` as a command: `exit N` ends an interactive session with status N (the lines after
 * it are not run), and `exit` inside eval or `command` ends the shell, as Debian 12's dash does
 * (checked on this host: `printf 'echo a; exit 3; echo b\necho c\n' | dash -i` prints a, status 3;
 * `dash -c 'eval "exit 4"; echo no'` status 4; `dash -c 'command exit 5; echo no'` status 5).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'tapsim_main.js');
const run = (args: string[], input = '') => spawnSync(process.execPath, [cli, ...args], { input, encoding: 'latin1', timeout: 60000 });

describe('tapsim shell: exit', function () {
  this.timeout(60000);
  it('exit N ends an interactive session with status N', () => {
    const r = run(['shell'], 'echo a; exit 3; echo b\necho c\n');
    expect(r.stdout.replace(/# /g, '')).to.equal('a\n');
    expect(r.status).to.equal(3);
  });
  it('exit in eval and in command ends the shell', () => {
    expect(run(['shell', '-c', 'eval "exit 4"; echo no'])).to.include({ stdout: '', status: 4 });
    expect(run(['shell', '-c', 'command exit 5; echo no'])).to.include({ stdout: '', status: 5 });
  });
});

describe('tapsim shell: start-up', function () {
  this.timeout(60000);
  // Node's zlib and stream libraries cost a start ~10-25 ms at require time: gzipped data files
  // load them when first read (src/kernel/data.ts, userland/etc_tree.ts, kernel/printk.ts), so a
  // shell that reads none of them never loads them.
  it('`shell -c true` loads neither zlib nor the stream library', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-start-'));
    try {
      const probe = path.join(dir, 'probe.js');
      // (written with fs.writeSync: process.stderr itself would load the stream library)
      fs.writeFileSync(probe, 'process.on("exit", () => require("fs").writeSync(2, "\\nLOADED " + process.moduleLoadList.filter((m) => /^NativeModule (zlib|stream)$/.test(m)).join(",") + "\\n"));\n');
      const r = spawnSync(process.execPath, ['-r', probe, cli, 'shell', '-c', 'true'], { encoding: 'latin1', timeout: 60000 });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stderr).to.contain('\nLOADED \n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
