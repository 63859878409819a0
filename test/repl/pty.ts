/**
 * Drive `stap -i` through a real pseudo-terminal (python3's pty module, pty_session.py): send
 * keys, wait for screen text, record timings.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const STAP = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface PtyResult { ok: boolean; failed: string | null; screen: string; raw: string; timings: Record<string, number>; status: number | null }

export type Step = { send: string } | { expect: string; timeout?: number; name?: string } | { sleep: number };

export function pty(args: string[], steps: Step[], env: Record<string, string> = {}): PtyResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-pty-'));
  const spec = path.join(dir, 'steps.json');
  fs.writeFileSync(spec, JSON.stringify({ cmd: [process.execPath, STAP, '-i', ...args], env, steps }));
  const r = spawnSync('python3', [path.join(ROOT, 'test', 'repl', 'pty_session.py'), spec], { encoding: 'latin1', timeout: 120000 });
  fs.rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`pty_session.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PtyResult;
}
