/**
 * tapsim's on-disk caches (parsed tapsets, the V8 code cache of the bundled command):
 * $TAPSIM_CACHE_DIR, or <tmpdir>/tapsim-tapset-cache-<uid>.  Everything in it is an
 * optimisation, checked against what it was made from, and written atomically.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function defaultCacheDir(): string {
  if (process.env.TAPSIM_CACHE_DIR) return process.env.TAPSIM_CACHE_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(os.tmpdir(), `tapsim-tapset-cache-${uid}`);
}

/** Best-effort atomic write (temporary file + rename); failures are ignored. */
export function writeAtomic(file: string, data: string | Uint8Array): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch {
    // caches are best effort
  }
}

/**
 * A 128-bit non-cryptographic digest (four FNV-1a lanes with different offsets) as 32 hex
 * digits, for cache file names and keys; cheaper to start than node:crypto.
 */
export function digestHex(text: string): string {
  let h0 = 0x811c9dc5, h1 = 0x050c5d1f, h2 = 0x2f3b1a55, h3 = 0x6a09e667;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h0 = Math.imul(h0 ^ c, 0x01000193);
    h1 = Math.imul(h1 ^ c, 0x01000193) ^ (h0 >>> 15);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h1 >>> 13);
    h3 = Math.imul(h3 ^ c, 0x01000193) ^ (h2 >>> 11);
  }
  return [h0, h1, h2, h3].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
}
