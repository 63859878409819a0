/**
 * The seed experiments as golden tests: every `test/golden/seeds/NAME.sh` runs in a root shell on
 * the simulated machine (`tapsim shell [OPTS] NAME.sh`, from its directory) and its output is
 * compared byte for byte.
 *   NAME.sh        the script       NAME.expected  exact stdout     NAME.stderr  exact stderr (optional)
 *   NAME.opts      tapsim shell options (optional)                  NAME.exit    exit status (default 0)
 * Each script's header says which real recording its fixed parts were checked against
 * (test/fixtures/tracefs-real/, made by scripts/tracefs/record.sh).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const dir = path.join(root, 'test', 'golden', 'seeds');
const cli = path.join(root, 'dist', 'src', 'cli', 'tapsim_main.js');

describe('golden seed experiments (tapsim shell)', function () {
  this.timeout(120000);
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.sh')).sort()) {
    const base = path.join(dir, f.slice(0, -3));
    if (!fs.existsSync(base + '.expected')) continue;
    it(f, () => {
      const opts = fs.existsSync(base + '.opts') ? fs.readFileSync(base + '.opts', 'utf8').split(/\s+/).filter(Boolean) : [];
      const r = spawnSync(process.execPath, [cli, 'shell', ...opts, f], { cwd: dir, encoding: 'latin1', timeout: 110000 });
      expect(r.stdout, 'stdout').to.equal(fs.readFileSync(base + '.expected', 'latin1'));
      if (fs.existsSync(base + '.stderr')) expect(r.stderr, 'stderr').to.equal(fs.readFileSync(base + '.stderr', 'latin1'));
      const exit = fs.existsSync(base + '.exit') ? Number(fs.readFileSync(base + '.exit', 'utf8').trim()) : 0;
      expect(r.status, `exit status (stderr: ${r.stderr})`).to.equal(exit);
    });
  }
});
