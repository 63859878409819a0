/**
 * The call-path templates compiled by the build (src/machine/paths/template_table.ts, written by
 * `npm run build`): every template has a current program, and it is, renumbered, the program the
 * text compiler makes (paths/dsl.ts compilePath); a changed template or another symbol table makes
 * its program unused.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { installKernelSemantics } from '../../src/machine/machine';
import { pathNames, pathSource, builtTemplate, compilePath, templatesForBuild } from '../../src/machine/paths/dsl';
import { builtTemplateTableFile, readTemplateTable, writeTemplateTable, includesOf } from '../../src/machine/paths/template_table';

installKernelSemantics();

describe('template table', () => {
  it('holds every template, each equal to what the text compiler makes', () => {
    const names = pathNames();
    expect(names.length).to.be.greaterThan(50);
    for (const name of names) {
      const b = builtTemplate(name);
      expect(b, name).to.not.equal(null);
      expect(Array.from(b!.code), name).to.deep.equal(Array.from(compilePath(name).code));
    }
  });

  it('is unused for a template whose text (or an included one) changed, and for another symbol table', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-tt-'));
    try {
      const file = path.join(dir, 't.bin');
      const t = templatesForBuild();
      writeTemplateTable(file, t.programs, t.names, pathSource);
      // a template that includes another
      const incl = pathNames().find((n) => includesOf(pathSource(n)).length > 0)!;
      const inc = includesOf(pathSource(incl))[0];
      const src = (over: Record<string, string>) => (n: string) => over[n] ?? (pathNames().includes(n) ? pathSource(n) : undefined);
      expect(readTemplateTable(file, src({}))!.program(incl)).to.not.equal(null);
      expect(readTemplateTable(file, src({ [incl]: `${pathSource(incl)}\n  schedule\n` }))!.program(incl)).to.equal(null);
      const changedInc = readTemplateTable(file, src({ [inc]: `${pathSource(inc)}\n  schedule\n` }))!;
      expect(changedInc.program(incl)).to.equal(null);
      expect(changedInc.program(inc)).to.equal(null);
      // another symbol table: the header names the one it was compiled with
      const buf = fs.readFileSync(file);
      const nl = buf.indexOf(10);
      const h = JSON.parse(buf.toString('latin1', nl + 1, nl + 1 + Number(buf.toString('latin1', 0, nl))));
      h.symtab = 'other';
      const hb = Buffer.from(JSON.stringify(h), 'latin1');
      fs.writeFileSync(file, Buffer.concat([Buffer.from(`${hb.length}\n`), hb, buf.subarray(nl + 1 + Number(buf.toString('latin1', 0, nl)))]));
      expect(readTemplateTable(file, src({}))).to.equal(null);
      expect(readTemplateTable(path.join(dir, 'missing.bin'), src({}))).to.equal(null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the table the build wrote', () => {
    expect(fs.existsSync(builtTemplateTableFile())).to.equal(true);
  });
});
