/**
 * dbench's load file as the machine installs it (/usr/share/dbench/client.txt): the first lines of
 * Debian 12's, data/userland/dbench-client.txt.gz (scripts/userland/dbench-loadfile.sh), inflated on
 * the first read; its size comes from the gzip trailer so that the boot does not inflate it.
 */
import * as fs from 'fs';
import { userlandDataFile } from '../process/ldso';

let loadText: Uint8Array | null = null;
/** the load file's bytes */
export function dbenchLoadfile(): Uint8Array {
  if (loadText) return loadText;
  const f = userlandDataFile('dbench-client.txt.gz');
  // zlib (and the stream library under it) loaded on the first read only: not at boot (issue 17)
  const zlib = require('zlib') as typeof import('zlib');
  loadText = f ? new Uint8Array(zlib.gunzipSync(fs.readFileSync(f))) : new Uint8Array(0);
  return loadText;
}
/** the load file's size without inflating it (gzip's ISIZE trailer) */
export function dbenchLoadfileSize(): number {
  const f = userlandDataFile('dbench-client.txt.gz');
  if (!f) return 0;
  const fd = fs.openSync(f, 'r');
  try {
    const b = Buffer.alloc(4);
    fs.readSync(fd, b, 0, 4, fs.fstatSync(fd).size - 4);
    return b.readUInt32LE(0);
  } finally { fs.closeSync(fd); }
}

