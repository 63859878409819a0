/**
 * Compiling recorded trees (src/machine/paths/compile.ts): long callees compile lazily, as chunks run
 * through OP_SUB, and a tree compiled so is the same program as the tree compiled at once (each
 * OP_SUB replaced by its chunk's program, jump targets moved); short trees (the hot syscalls) have no chunk.
 * The expected programs are the compiler's own eager output: what the machine ran before chunks existed.
 */
import { expect } from 'chai';
import { installKernelSemantics } from '../../src/machine/machine';
import { modelKey, modelFnId, ModelKey } from '../../src/machine/paths/model';
import { compileShape, chunkCode, setChunkChars, parseModelShape, shapeText } from '../../src/machine/paths/compile';
import { OP_TP, OP_HOOK, OP_IF, OP_IFNOT, OP_END, OP_INLINE, OP_REPEAT, OP_LOOP, OP_MODEL, OP_SUB } from '../../src/machine/paths/dsl';

installKernelSemantics();

/** Operands after each opcode. */
const OPERANDS = new Map<number, number>([[OP_TP, 1], [OP_HOOK, 1], [OP_INLINE, 1], [OP_IF, 2], [OP_IFNOT, 2], [OP_REPEAT, 4], [OP_LOOP, 1], [OP_MODEL, 1], [OP_SUB, 1]]);

/**
 * A program with every OP_SUB replaced by its chunk's program (expanded too), without the final OP_END;
 * `base`: where it starts in the whole program (its jump targets move by it).
 */
function expand(code: Int32Array, base = 0): number[] {
  const out: number[] = [];
  const at = new Int32Array(code.length + 1);
  const fix: number[] = [];
  let pc = 0;
  while (pc < code.length) {
    const op = code[pc];
    at[pc] = out.length;
    if (op === OP_END) { pc++; continue; }
    if (op === OP_SUB) { for (const x of expand(chunkCode(code[pc + 1]).code, base + out.length)) out.push(x); pc += 2; continue; }
    const n = op >= 0 ? 0 : OPERANDS.get(op) ?? 0;
    if (op === OP_REPEAT) fix.push(out.length + 4);
    if (op === OP_LOOP || op === OP_IF || op === OP_IFNOT) fix.push(out.length + n);
    for (let i = 0; i <= n; i++) out.push(code[pc + i]);
    pc += 1 + n;
  }
  at[code.length] = out.length;
  for (const i of fix) out[i] = base + at[out[i]];
  return out;
}

function compileWith(chars: number, shape: string): Int32Array {
  const old = setChunkChars(chars);
  try {
    return compileShape('test', shape, 0, shape.length, -1, modelFnId, false).code;
  } finally {
    setChunkChars(old);
  }
}

describe('recorded trees: lazy compilation', () => {
  const biggest = (k: ModelKey, n: number): string[] => k.variants.map((v) => v.shape).sort((a, b) => b.length - a.length).slice(0, n);

  it('a tree compiled in chunks is the program compiled at once (exit, exec, faults, every chunk size)', () => {
    for (const name of ['sys:exit_group', 'sys:execve', 'fault', 'sys:write']) {
      for (const shape of biggest(modelKey(name)!, 3)) {
        const eager = compileWith(Infinity, shape);
        expect(eager.includes(OP_SUB), name).to.equal(false);
        for (const chars of [0, 64, 2048]) {
          const lazy = compileWith(chars, shape);
          if (chars < shape.length / 2) expect(lazy.includes(OP_SUB), `${name} ${chars}`).to.equal(true);
          expect(expand(lazy), `${name} in chunks of ${chars}`).to.deep.equal([...eager.subarray(0, eager.length - 1)]);
        }
      }
    }
  });

  it('short trees (a read, a write of a few bytes) compile at once: no chunk on the hot path', () => {
    for (const name of ['sys:read', 'sys:write', 'sys:close']) {
      const k = modelKey(name)!;
      const shape = k.variants.map((v) => v.shape).sort((a, b) => a.length - b.length)[0];
      expect(compileShape('test', shape, 0, shape.length, -1, modelFnId, false).code.includes(OP_SUB), name).to.equal(false);
    }
  });

  it('shape text parses and prints back unchanged', () => {
    for (const name of ['sys:exit_group', 'schedule', 'ttwu']) {
      for (const shape of biggest(modelKey(name)!, 2)) expect(shapeText(parseModelShape(shape))).to.equal(shape);
    }
  });
});
