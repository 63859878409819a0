/**
 * Persistent input history for the REPL: ~/.tapsim_history ($HOME respected), one entry per
 * line (multi-line inputs are joined with spaces), newest last, at most HISTORY_SIZE entries.
 * Reading or writing never fails the session: an unreadable or unwritable file just means no
 * history.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fromBinary } from '../runtime/strings';

export const HISTORY_SIZE = 1000;

export function historyFile(): string | null {
  const home = process.env.HOME || (() => {
    try {
      return os.homedir();
    } catch {
      return '';
    }
  })();
  return home ? path.join(home, '.tapsim_history') : null;
}

export class History {
  /** Oldest first. */
  entries: string[] = [];

  constructor(private file: string | null = historyFile()) {
    if (!file) return;
    try {
      this.entries = fs.readFileSync(file, 'latin1').split('\n').filter((l) => l.trim() !== '').slice(-HISTORY_SIZE);
    } catch {
      this.entries = [];
    }
  }

  /** Newest first, as readline's `history` option wants it (text: entries are byte strings). */
  forReadline(): string[] {
    return this.entries.map(fromBinary).reverse();
  }

  /** Record one input (appended to the file; the file is trimmed when it grows too long). */
  add(input: string): void {
    const line = input.replace(/\s*\n\s*/g, ' ').trim();
    if (!line || this.entries[this.entries.length - 1] === line) return;
    this.entries.push(line);
    if (!this.file) return;
    try {
      if (this.entries.length > HISTORY_SIZE * 1.5) {
        this.entries = this.entries.slice(-HISTORY_SIZE);
        fs.writeFileSync(this.file, this.entries.join('\n') + '\n', { mode: 0o600, encoding: 'latin1' });
      } else {
        fs.appendFileSync(this.file, line + '\n', { mode: 0o600, encoding: 'latin1' });
      }
    } catch {
      // unwritable history: keep it in memory only
    }
  }
}
