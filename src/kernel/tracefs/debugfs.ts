/**
 * debugfs as the tracing side of Linux 6.1 populates it: kprobes/{list,enabled,blacklist}
 * (kernel/kprobes.c) and `tracing`, the automount of tracefs (tracefs itself, not a copy).
 */
import { EINVAL } from '../errno';
import { kprobesList } from '../introspect';
import { kprobesEnabled, setKprobesEnabled } from '../kprobes';
import { kprobeBlacklist, addrHex } from '../kallsyms';
import { Dir, File, PseudoNode, textFile, parseUlong } from './vfs';

/** The debugfs root for a tracefs root. */
export function debugfsRoot(tfs: { root(): PseudoNode }): Dir {
  const kp = new Dir(0o700)
    .add('blacklist', textFile(() => kprobeBlacklist().map((e) => `0x${addrHex(e.start)}-0x${addrHex(e.end)}\t${e.name}\n`).join(''), 0o400))
    .add('enabled', new File(0o600, {
      show: () => (kprobesEnabled() ? '1\n' : '0\n'),
      write: (t) => {
        const c = t.trim()[0];
        if (c === '1' || c === 'y' || c === 'Y') setKprobesEnabled(true);
        else if (c === '0' || c === 'n' || c === 'N') setKprobesEnabled(false);
        else return -EINVAL;
        return t.length;
      },
    }))
    .add('list', textFile(() => kprobesList().map((l) => l + '\n').join(''), 0o400));
  return new Dir(0o700).add('kprobes', kp).add('tracing', () => tfs.root());
}

export { parseUlong };
