/**
 * dash 0.5.12's getopts builtin (options.c getoptscmd / getopts): `getopts OPTSTRING VAR [ARG...]`
 * parses the positional parameters (or the ARGs) one option letter per call.  Its place is OPTIND
 * (the next word, 1-based) plus an offset inside the current word (several letters in one `-ab`),
 * which dash keeps beside OPTIND; assigning OPTIND starts over (var.c getoptsreset).  Messages go
 * to standard error without the shell's prefix ("Illegal option -x", "No arg for -x option"),
 * silenced by a leading ':' in OPTSTRING, which then reports the letter in OPTARG.
 */

/** What getopts needs of the shell: its variables and parameters, and where it is in them. */
export interface GetoptsHost {
  vars: Map<string, string>;
  params: string[];
  getopts: GetoptsState;
}

/** shellparam.optind and shellparam.optoff; `seen` is the OPTIND value getopts itself set last */
export interface GetoptsState { optind: number; optoff: number; seen: string }

export const newGetoptsState = (): GetoptsState => ({ optind: 1, optoff: -1, seen: '1' });

/** The result: the exit status, and a message for standard error (or ''). */
export function getopts(h: GetoptsHost, w: string[]): { status: number; err: string } {
  if (w.length < 3) return { status: 2, err: 'getopts: Usage: getopts optstring var [arg]\n' };
  const st = h.getopts;
  // getoptsreset: OPTIND assigned since getopts last set it
  const cur = h.vars.get('OPTIND') ?? '';
  if (cur !== st.seen) { st.optind = Math.trunc(Number(cur)) || 1; st.optoff = -1; }
  const optstr = w[1], optvar = w[2];
  const args = w.length === 3 ? h.params : w.slice(3);
  if (st.optind > args.length + 1) { st.optind = 1; st.optoff = -1; }
  if (st.optind < 1) return { status: 1, err: '' };
  let err = '';
  let c = '?';
  let done = 0;
  // optnext: index in args of the next word; the current word is args[optnext - 1]
  let optnext = st.optind - 1;
  let word = -1; // the word p points into (-1: none)
  let p = -1;
  if (st.optind > 1 && st.optoff >= 0 && args[optnext - 1] !== undefined && args[optnext - 1].length >= st.optoff) { word = optnext - 1; p = st.optoff; }
  out: {
    if (word < 0 || p >= args[word].length) {
      // the current word is done: the next one, if it is an option word
      const a = args[optnext];
      if (a === undefined || a[0] !== '-' || a.length === 1 || a === '--') {
        if (a === '--') optnext++;
        word = -1;
        done = 1;
        break out;
      }
      word = optnext++;
      p = 1;
    }
    c = args[word][p++];
    // dash's walk of OPTSTRING: letters, each maybe followed by ':'
    let at = 0;
    while (at < optstr.length && optstr[at] !== c) { at++; if (optstr[at] === ':') at++; }
    if (at >= optstr.length) {
      if (optstr[0] === ':') h.vars.set('OPTARG', c);
      else { err = `Illegal option -${c}\n`; h.vars.delete('OPTARG'); }
      c = '?';
      break out;
    }
    if (optstr[at + 1] === ':') {
      if (p >= args[word].length) {
        if (args[optnext] === undefined) {
          if (optstr[0] === ':') { h.vars.set('OPTARG', c); c = ':'; } else { err = `No arg for -${c} option\n`; h.vars.delete('OPTARG'); c = '?'; }
          word = -1;
          break out;
        }
        h.vars.set('OPTARG', args[optnext++]);
      } else h.vars.set('OPTARG', args[word].slice(p));
      word = -1;
    } else h.vars.set('OPTARG', '');
  }
  st.optoff = word >= 0 && word === optnext - 1 ? p : -1;
  st.optind = optnext + 1;
  st.seen = String(st.optind);
  h.vars.set('OPTIND', st.seen);
  h.vars.set(optvar, c);
  return { status: done, err };
}
