/**
 * Loaded into child `stap` processes of the fuzz campaign (NODE_OPTIONS=--require): the host-write
 * guard (hostwrites.ts), allowed directories from FUZZ_ALLOWED, violations appended to
 * FUZZ_WRITE_LOG when the process exits.
 */
import * as fs from 'fs';
import { guard, installGuard } from './hostwrites';

const log = process.env.FUZZ_WRITE_LOG;
if (log) {
  guard.allowed = (process.env.FUZZ_ALLOWED ?? '').split('\n').filter(Boolean);
  installGuard();
  process.on('exit', () => {
    if (guard.violations.length) fs.appendFileSync(log, guard.violations.join('\n') + '\n');
  });
}
