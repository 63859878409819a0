/**
 * Node's internal bindings through process.binding(), for the few functions a start needs
 * without loading a public module that costs milliseconds (zlib's crc32, v8's flag setter).
 * process.binding warns that it is deprecated: that one warning is silenced.
 */

type Binding = Record<string, unknown>;

/** process.binding(name), or undefined when this Node has no such binding. */
export function quietBinding(name: string): Binding | undefined {
  const p = process as unknown as { binding?: (name: string) => Binding; noDeprecation?: boolean };
  // (--no-deprecation makes the property read-only and true: nothing to silence then)
  const had = Object.prototype.hasOwnProperty.call(p, 'noDeprecation');
  const before = p.noDeprecation;
  try {
    if (!before) p.noDeprecation = true;
    return p.binding?.(name);
  } catch {
    return undefined;
  } finally {
    if (!before) {
      if (had) p.noDeprecation = before;
      else delete p.noDeprecation;
    }
  }
}
