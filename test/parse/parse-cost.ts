/**
 * Parse cost of a machine-generated script, run as `node --expose-gc parse-cost.js BYTES`
 * (bounds.test.ts): prints {bytes, ms, kept, ok} as JSON, `kept` being the heap the parsed file
 * holds after a full collection.  The script has what generators write: many probes, long
 * functions, array fills, long concatenations.
 */
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';

export function generatedScript(bytes: number): string {
  const out = ['global counts, names[100000], total, enabled\n'];
  let size = out[0].length;
  for (let i = 0; size < bytes; i++) {
    let s: string;
    switch (i % 4) {
      case 0:
        s = `probe kernel.function("vfs_read") if (enabled == ${i}) { counts[${i}, execname()] <<< $count; total += ${i} }\n`;
        break;
      case 1: {
        let body = '';
        for (let j = 0; j < 20; j++) body += `  x${j} = x${j} * ${j + 1} + ${i}; if (x${j} > ${i * 7}) names[${j}] = "n${j}" . sprint(x${j})\n`;
        s = `function f${i}(x0) {\n${body}  return x0\n}\n`;
        break;
      }
      case 2: {
        let body = '';
        for (let j = 0; j < 50; j++) body += `  names[${i * 50 + j}] = "value ${j}";\n`;
        s = `probe begin {\n${body}}\n`;
        break;
      }
      default:
        s = `probe timer.s(${(i % 10) + 1}) { s = ${Array.from({ length: 40 }, (_, j) => `"p${j}"`).join(' . ')}; printf("%s\\n", s) }\n`;
    }
    out.push(s);
    size += s.length;
  }
  return out.join('');
}

if (require.main === module) {
  const text = generatedScript(Number(process.argv[2] ?? 1000000));
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const before = process.memoryUsage().heapUsed;
  const t0 = Date.now();
  const file = parseFile({ name: 'gen.stp', text, isTapset: false }, { args: [], guru: false }, new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined));
  const ms = Date.now() - t0;
  gc();
  const kept = process.memoryUsage().heapUsed - before;
  process.stdout.write(JSON.stringify({ bytes: text.length, ms, kept, ok: file !== null && file.probes.length > 0 }) + '\n');
}
