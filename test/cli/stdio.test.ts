import { expect } from 'chai';
import * as cp from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FdWriter, Sink, WriteSync } from '../../src/cli/stdio';

class FakeStream implements Sink {
  chunks: string[] = [];
  handlers: ((e: NodeJS.ErrnoException) => void)[] = [];
  write(chunk: Uint8Array | string, cb?: () => void): boolean {
    this.chunks.push(Buffer.from(chunk).toString('latin1'));
    if (cb) cb();
    return true;
  }
  on(_ev: 'error', fn: (e: NodeJS.ErrnoException) => void): this {
    this.handlers.push(fn);
    return this;
  }
}

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

describe('cli/stdio: output written straight to fds 1 and 2', () => {
  it('writes whole buffers through short writes, in order, to a file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-stdio-'));
    try {
      const fd = fs.openSync(path.join(dir, 'out'), 'w');
      const short: WriteSync = (f, b, off, len) => fs.writeSync(f, b, off, Math.min(len, 3));
      const w = new FdWriter(fd, () => { throw new Error('no stream wanted'); }, () => { throw new Error('no EPIPE'); }, short);
      w.write(Buffer.from('hello, '));
      w.write(Buffer.from('world\n'));
      let flushed = false;
      w.flush(() => { flushed = true; });
      fs.closeSync(fd);
      expect(flushed).to.equal(true);
      expect(w.streaming).to.equal(false);
      expect(fs.readFileSync(path.join(dir, 'out'), 'latin1')).to.equal('hello, world\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hands a full non-blocking fd (EAGAIN) to its stream from the unwritten byte on', () => {
    const written: string[] = [];
    let calls = 0;
    const ws: WriteSync = (_f, b, off, len) => {
      if (++calls === 2) throw errno('EAGAIN');
      const n = Math.min(len, 4);
      written.push(Buffer.from(b.subarray(off, off + n)).toString('latin1'));
      return n;
    };
    const s = new FakeStream();
    let opened = 0;
    const w = new FdWriter(1, () => { opened++; return s; }, () => { throw new Error('no EPIPE'); }, ws);
    w.write(Buffer.from('abcdefgh'));
    w.write(Buffer.from('ij'));
    expect(written).to.deep.equal(['abcd']);
    expect(s.chunks).to.deep.equal(['efgh', 'ij']);
    expect(opened).to.equal(1);
    expect(w.streaming).to.equal(true);
    expect(s.handlers).to.have.length(1);
    let flushed = false;
    w.flush(() => { flushed = true; });
    expect(flushed).to.equal(true);
  });

  it('EPIPE calls the reader-gone action (also from the stream); other errors are thrown', () => {
    let gone = 0;
    const w = new FdWriter(1, () => new FakeStream(), () => { gone++; }, () => { throw errno('EPIPE'); });
    w.write(Buffer.from('x'));
    expect(gone).to.equal(1);
    const bad = new FdWriter(1, () => new FakeStream(), () => { gone++; }, () => { throw errno('EIO'); });
    expect(() => bad.write(Buffer.from('x'))).to.throw('EIO');
    let n = 0;
    const s = new FakeStream();
    const w2 = new FdWriter(1, () => s, () => { gone++; }, () => { if (n++ === 0) throw errno('EAGAIN'); return 1; });
    w2.write(Buffer.from('y'));
    s.handlers[0](errno('EPIPE'));
    expect(gone).to.equal(2);
  });

  it('stap ... | head: the run ends with status 141 when its reader goes away', function () {
    const main = path.join(__dirname, '../../src/cli/main.js');
    const script = 'probe timer.ms(1) { for (i = 0; i < 300; i++) println("line ", i) } probe timer.s(30) { exit() }';
    const sh = cp.spawnSync('bash', ['-c', `node "${main}" -e '${script}' | head -1; echo "status \${PIPESTATUS[0]}"`], { encoding: 'latin1' });
    expect(sh.stdout).to.equal('line 0\nstatus 141\n');
    expect(sh.stderr).to.equal('');
  });
});
