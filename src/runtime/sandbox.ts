/**
 * Compiling a generated module (pass 3's output) so that the only thing it can reach is the
 * runtime object it is given.
 *
 * The module body runs inside `function (R) { "use strict"; ... }`, itself inside an outer
 * function whose parameters shadow every global name (the global object's own and inherited
 * properties: process, require, globalThis, Function, eval, Reflect, Buffer, ..., constructor,
 * __proto__ ...) except a few harmless value intrinsics the generated code uses (Math, Number,
 * BigInt ...), plus the CommonJS names (require, module, exports ...).  The parameter list is
 * computed once and frozen; the call passes no arguments, so every shadowed name is undefined.
 * The source is compiled with vm.Script in this realm (no cost at probe hits: a handler is an
 * ordinary function of this realm, unlike one in a separate vm context, which V8 cannot
 * inline into its caller) and without a dynamic-import hook, so `import()` fails.
 *
 * The command additionally closes the constructors of function objects (closeFunctionConstructors):
 * every function the runtime hands the module is a way back to `Function` through
 * `f.constructor`, and so to code made from strings; with that closed, the module has no way to
 * compile code or to reach the host's globals.
 *
 * The generated code never contains user text as code in the first place (src/translate/emit.ts);
 * this is the second wall.
 */
import * as vm from 'vm';

/** Globals the generated code may use by name (values without a path to the host). */
const KEPT = new Set(['Math', 'Number', 'BigInt', 'String', 'Array', 'Infinity', 'NaN', 'undefined']);

const RESERVED = new Set(['arguments', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default',
  'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import',
  'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public', 'return', 'static',
  'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield']);

let shadowed: readonly string[] | null = null;

/** The names the module must not reach: every global (own and inherited) and the CommonJS ones. */
export function shadowedNames(): readonly string[] {
  if (shadowed) return shadowed;
  const names = new Set<string>(['require', 'module', 'exports', '__filename', '__dirname', 'eval', 'globalThis', 'global',
    'process', 'Function', 'Reflect', 'Proxy', 'WebAssembly', 'constructor', '__proto__']);
  for (let o: object | null = globalThis; o; o = Object.getPrototypeOf(o)) {
    for (const n of Object.getOwnPropertyNames(o)) names.add(n);
  }
  const ok = [...names].filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !RESERVED.has(n) && !KEPT.has(n)).sort();
  return (shadowed = Object.freeze(ok));
}

/** The module function `(R) => Module` of a generated module's source. */
export function compileModule<M>(source: string): (R: object) => M {
  const params = shadowedNames().join(', ');
  const text = `(function (${params}) { return function (R) { "use strict";\n${source}\n}; })`;
  const outer = new vm.Script(text, { filename: 'stap-module.js' }).runInThisContext() as () => (R: object) => M;
  return outer();
}

function refused(): never {
  throw new EvalError('code generation from strings is disabled in tapsim');
}

/**
 * Replace the `constructor` of the function prototypes (Function, async, generator and async
 * generator functions) by a function that refuses: `f.constructor("...")` of any function no
 * longer compiles code.  Nothing in the stap command uses them; called once by the command
 * (src/cli/stap.ts) before it runs a script, not by the library (tests keep their realm).
 */
export function closeFunctionConstructors(): void {
  /* eslint-disable @typescript-eslint/no-empty-function */
  const protos = [Function.prototype, Object.getPrototypeOf(async function () {}), Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {})] as object[];
  for (const p of protos) {
    const d = Object.getOwnPropertyDescriptor(p, 'constructor');
    if (d && d.value === refused) continue;
    Object.defineProperty(p, 'constructor', { value: refused, writable: false, enumerable: false, configurable: false });
  }
}
