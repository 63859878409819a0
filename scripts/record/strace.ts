/**
 * strace -f -tt -v -s 256 -X raw output to records: one per syscall (an `<unfinished ...>` call and
 * its `<... resumed>` line are joined at the call's time), signal (`---`) and exit (`+++`).
 */

export interface StraceRecord {
  pid: number;
  /** µs since the first line */
  t: number;
  /** the syscall name, '---' for a signal, '+++' for an exit */
  name: string;
  /** the raw argument text (strace's rendering, -X raw: numbers for flags and constants) */
  args: string;
  /** the return text: '3', '-1 ENOENT (No such file or directory)', '?' */
  ret: string;
}

const HEAD = /^(\d+)\s+(\d\d):(\d\d):(\d\d(?:\.\d+)?) (.*)$/;

function seconds(h: string, m: string, s: string): number { return Number(h) * 3600 + Number(m) * 60 + Number(s); }

export function parseStrace(text: string): StraceRecord[] {
  const out: StraceRecord[] = [];
  const pending = new Map<number, StraceRecord>();
  let t0 = -1;
  for (const line of text.split('\n')) {
    const m = HEAD.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    let ts = seconds(m[2], m[3], m[4]);
    if (t0 < 0) t0 = ts;
    if (ts < t0) ts += 86400; // past midnight
    const t = Math.round((ts - t0) * 1e6);
    const body = m[5];
    let r: RegExpExecArray | null;
    if (body.startsWith('---')) {
      out.push({ pid, t, name: '---', args: body.replace(/^--- | ---$/g, ''), ret: '' });
    } else if (body.startsWith('+++')) {
      out.push({ pid, t, name: '+++', args: body.replace(/^\+\+\+ | \+\+\+$/g, ''), ret: '' });
    } else if ((r = /^<\.\.\. (\w+) resumed>(.*)$/.exec(body))) {
      const p = pending.get(pid);
      pending.delete(pid);
      const done = /^(.*)\)\s+= (.*)$/.exec(r[2]);
      const rec = p ?? { pid, t, name: r[1], args: '', ret: '' };
      if (done) { rec.args += done[1]; rec.ret = done[2]; } else { rec.args += r[2].replace(/\)\s*$/, ''); rec.ret = '?'; }
      if (!p) out.push(rec);
    } else if ((r = /^(\w+)\((.*) <unfinished \.\.\.>$/.exec(body))) {
      const rec = { pid, t, name: r[1], args: r[2], ret: '' };
      pending.set(pid, rec);
      out.push(rec);
    } else if ((r = /^(\w+)\((.*)\)\s+= (.*)$/.exec(body))) {
      out.push({ pid, t, name: r[1], args: r[2], ret: r[3] });
    } else if ((r = /^(\w+)\((.*)$/.exec(body))) {
      out.push({ pid, t, name: r[1], args: r[2], ret: '?' }); // exit_group(0) = ? and the like
    }
  }
  return out;
}

/** The syscall-name sequence of the records (signals and exits left out). */
export function syscallNames(recs: readonly StraceRecord[], pid?: number): string[] {
  return recs.filter((r) => r.name !== '---' && r.name !== '+++' && (pid === undefined || r.pid === pid)).map((r) => r.name);
}
