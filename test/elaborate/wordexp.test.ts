import { expect } from 'chai';
import { wordexp } from '../../src/elaborate/wordexp';
import { checkUnspecifiedProcess } from '../../src/elaborate/process_target';
import { SemanticError } from '../../src/diag';
import type * as A from '../../src/ast';

const env = { HOME: '/root', PATH: '/usr/bin:/bin' };

describe('elaborate: wordexp of the -c command (WRDE_NOCMD | WRDE_UNDEF)', () => {
  it('splits words, removes quotes and expands defined variables', () => {
    expect(wordexp(`ls -l 'a b' "x$HOME" c\\ d`, env)).to.deep.equal({ ok: true, words: ['ls', '-l', 'a b', 'x/root', 'c d'] });
    expect(wordexp('echo ${UNSET:-dflt} $((1+2))', env)).to.deep.equal({ ok: true, words: ['echo', '', '1+2'] });
  });
  it('reports what stap reports', () => {
    expect(wordexp('ls || true', env)).to.deep.equal({ ok: false, error: 'badchar' });
    expect(wordexp('ls > out', env)).to.deep.equal({ ok: false, error: 'badchar' });
    expect(wordexp('ls $NOPE', env)).to.deep.equal({ ok: false, error: 'badval' });
    expect(wordexp('ls "${NOPE}"', env)).to.deep.equal({ ok: false, error: 'badval' });
    expect(wordexp('ls `out`', env)).to.deep.equal({ ok: false, error: 'cmdsub' });
    expect(wordexp('ls "$(out)"', env)).to.deep.equal({ ok: false, error: 'cmdsub' });
    expect(wordexp('ls "string', env)).to.deep.equal({ ok: false, error: 'syntax' });
    expect(wordexp("ls 'string", env)).to.deep.equal({ ok: false, error: 'syntax' });
    // quoted special characters are plain text
    expect(wordexp("ls '|&;'", env)).to.deep.equal({ ok: true, words: ['ls', '|&;'] });
  });
  it('checks an unspecified process point against -c / -x', () => {
    const tok = { kind: 'identifier', text: 'process' } as unknown as A.Token;
    const first = { name: 'process', tok } as A.ProbePointComponent;
    const msg = (t: { command?: string; pid?: number }): string[] => {
      try {
        checkUnspecifiedProcess(first, t);
        return [];
      } catch (e) {
        const se = e as SemanticError;
        return [se.message, ...se.chain.map((c) => c.message)];
      }
    };
    expect(msg({})).to.deep.equal(['unspecified process probe is invalid without a -c COMMAND or -x PID [man stapprobes]']);
    expect(msg({ command: 'ls `x`' })).to.deep.equal(['invalid -c command for unspecified process probe [man stapprobes]', 'command contains command substitutions']);
    expect(msg({ command: 'ls /' })).to.deep.equal([]);
    expect(msg({ pid: 1 })).to.deep.equal([]);
    const named = { name: 'process', tok, arg: { k: 'str', value: '/bin/ls', tok } } as unknown as A.ProbePointComponent;
    expect(() => checkUnspecifiedProcess(named, {})).to.not.throw();
  });
});
