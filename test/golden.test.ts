/**
 * Golden tests: every `test/golden/<suite>/<name>.stp` is run through the real `stap` command
 * (dist/src/cli/main.js) and its output compared byte for byte.
 *
 *   NAME.stp       the script (run from its directory, named by its file name)
 *   NAME.expected  exact stdout
 *   NAME.stderr    exact stderr (optional; when absent stderr is not checked)
 *   NAME.exit      expected exit status (optional; default 0)
 *   NAME.opts      stap options placed before the script, split on spaces, '...' quotes (optional)
 *   NAME.args      script arguments after the script, split on spaces (optional)
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const goldenDir = path.join(root, 'test', 'golden');
const cli = path.join(root, 'dist', 'src', 'cli', 'main.js');

/** Words of an .opts/.args file: split on white space; '...' or "..." quote one word (`-c 'ls /tmp'`). */
function words(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  const text = fs.readFileSync(file, 'utf8');
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

describe('golden tests (stap command output)', function () {
  this.timeout(120000);
  for (const suite of fs.readdirSync(goldenDir).sort()) {
    const dir = path.join(goldenDir, suite);
    if (!fs.statSync(dir).isDirectory()) continue;
    describe(suite, () => {
      for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.stp')).sort()) {
        const base = path.join(dir, f.slice(0, -4));
        if (!fs.existsSync(base + '.expected')) continue;
        it(f, () => {
          const argv = [cli, ...words(base + '.opts'), f, ...words(base + '.args')];
          const r = spawnSync(process.execPath, argv, { cwd: dir, encoding: 'latin1', timeout: 90000 });
          expect(r.stdout, 'stdout').to.equal(fs.readFileSync(base + '.expected', 'latin1'));
          if (fs.existsSync(base + '.stderr')) expect(r.stderr, 'stderr').to.equal(fs.readFileSync(base + '.stderr', 'latin1'));
          const exit = fs.existsSync(base + '.exit') ? Number(fs.readFileSync(base + '.exit', 'utf8').trim()) : 0;
          expect(r.status, `exit status (stderr: ${r.stderr})`).to.equal(exit);
        });
      }
    });
  }
});
