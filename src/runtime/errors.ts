/**
 * Runtime errors raised by generated code and the runtime library.
 * `message` is the bare stap text (what `try { } catch (msg)` receives).
 */
export class StapError extends Error {
  /** false for errors that try/catch cannot intercept (MAXACTION exceeded, abort()). */
  catchable: boolean;
  /** Location info filled in by the engine (token / call chain); opaque to the runtime. */
  loc?: unknown;
  constructor(message: string, catchable = true, loc?: unknown) {
    super(message);
    this.name = 'StapError';
    this.catchable = catchable;
    if (loc !== undefined) this.loc = loc;
  }
}

/** Throw a catchable StapError (usable inside expressions: `x || stapThrow('...')`). */
export function stapThrow(message: string): never {
  throw new StapError(message);
}

export function isStapError(e: unknown): e is StapError {
  return e instanceof StapError;
}
