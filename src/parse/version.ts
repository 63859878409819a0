/**
 * The language version: stap 4.8, or the older one `--compatible VERSION` asks for.  stap
 * compares versions with glibc's strverscmp (session.cxx, parse.cxx has_version) and refuses a
 * VERSION newer than itself.
 */

export const STAP_VERSION = '4.8';

/** glibc strverscmp. */
export function strverscmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a[i];
    const cb = b[j];
    if (/\d/.test(ca) && /\d/.test(cb)) {
      let na = '';
      let nb = '';
      while (i < a.length && /\d/.test(a[i])) na += a[i++];
      while (j < b.length && /\d/.test(b[j])) nb += b[j++];
      const fa = na.startsWith('0');
      const fb = nb.startsWith('0');
      if (fa || fb) {
        // fractional comparison
        if (na !== nb) return na < nb ? -1 : 1;
        continue;
      }
      if (na.length !== nb.length) return na.length < nb.length ? -1 : 1;
      if (na !== nb) return na < nb ? -1 : 1;
      continue;
    }
    if (ca !== cb) return ca < cb ? -1 : 1;
    i++;
    j++;
  }
  return (a.length - i) - (b.length - j) < 0 ? -1 : (a.length - i) - (b.length - j) > 0 ? 1 : 0;
}

/**
 * True when `--compatible` asks for a language older than `version` (stap's `!has_version(version)`):
 * the feature added in `version` is off.
 */
export function compatBefore(compatible: string | undefined, version: string): boolean {
  return compatible !== undefined && strverscmp(compatible, version) < 0;
}

/** stap's refusal of a --compatible VERSION newer than 4.8, or undefined when it is accepted. */
export function compatibleError(compatible: string): string | undefined {
  if (strverscmp(compatible, STAP_VERSION) > 0) return `ERROR: systemtap version ${STAP_VERSION} cannot be compatible with future version ${compatible}`;
  return undefined;
}
