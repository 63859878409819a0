/**
 * The environment dash 0.5.12 gives the commands it execs (var.c listvars(VEXPORT, VUNSET)): the
 * exported, set variables in its variable table's order: bucket hashvar(name) % 39 (the first
 * character times 16 plus every character of the name), within a bucket in creation order (setvareq
 * appends a new variable at its bucket's end). Checked against this host's dash: `env -i HOME=/root
 * PATH=... TERM=vt220 sh -c 'cd /; cd /root; cat /proc/self/environ'` prints HOME OLDPWD TERM PATH PWD.
 */
const VTABSIZE = 39;

function hashvar(name: string): number {
  let h = (name.charCodeAt(0) & 0xff) << 4;
  for (let i = 0; i < name.length; i++) h += name.charCodeAt(i) & 0xff;
  return h % VTABSIZE;
}

/** NAME=VALUE of the exported variables of `vars` (in creation order) as dash lists them */
export function dashEnvironment(vars: ReadonlyMap<string, string>, exported: ReadonlySet<string>): string[] {
  const out: [number, number, string][] = [];
  let i = 0;
  for (const [k, v] of vars) {
    if (exported.has(k)) out.push([hashvar(k), i, `${k}=${v}`]);
    i++;
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
}

/**
 * A value as dash's `set` and `export -p` print it (mystring.c single_quote): runs without a quote
 * inside '...', runs of quotes inside "...": `it's` is 'it'"'"'s'.
 */
export function singleQuote(s: string): string {
  let out = '';
  let i = 0;
  do {
    let j = s.indexOf("'", i);
    if (j < 0) j = s.length;
    out += `'${s.slice(i, j)}'`;
    i = j;
    if (s[i] !== "'") break;
    while (s[j] === "'") j++;
    out += `"${s.slice(i, j)}"`;
    i = j;
  } while (i < s.length);
  return out;
}
