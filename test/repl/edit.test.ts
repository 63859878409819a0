/**
 * The REPL's `edit` hands $VISUAL a file made safely (issue 18): in a fresh directory of mode
 * 0700 (mkdtemp), created exclusively, removed afterwards, so a file or symlink another user
 * planted under the predictable old name is never followed or read.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pty } from './pty';

describe('REPL edit: a private temporary file', function () {
  this.timeout(150000);

  it('edits the session in a 0700 directory of its own, removed afterwards', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-edit-test-'));
    const report = path.join(dir, 'report.txt');
    const editor = path.join(dir, 'editor.sh');
    // the "editor" records what it was given, then writes a new session script
    fs.writeFileSync(editor, `#!/bin/sh
f="$1"; d=$(dirname "$f")
{ stat -c '%a %u' "$d"; stat -c '%a %F' "$f"; echo "$f"; } > '${report}'
printf 'global edited\\nprobe begin { edited = 1 }\\n' > "$f"
`, { mode: 0o755 });
    const r = pty([], [
      { expect: '^stap> ', timeout: 90, name: 'first prompt' },
      { send: 'global n\r' }, { expect: '^stap> ' },
      { send: 'edit\r' }, { expect: '\\(2 items\\)', name: 'edited' }, { expect: '^stap> ' },
      { send: 'list\r' }, { expect: 'probe begin \\{ edited = 1 \\}', name: 'list' }, { expect: '^stap> ' },
      { send: '\u0004' },
    ], { HOME: dir, VISUAL: editor, NO_COLOR: '' });
    expect(r.failed, r.screen).to.equal(null);
    const [dirLine, fileLine, file] = fs.readFileSync(report, 'utf8').trim().split('\n');
    expect(dirLine).to.equal(`700 ${process.getuid ? process.getuid() : 0}`);
    expect(fileLine).to.equal('600 regular file');
    expect(path.basename(path.dirname(file))).to.match(/^tapsim-edit-/);
    expect(fs.existsSync(path.dirname(file))).to.equal(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
