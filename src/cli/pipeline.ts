/**
 * The stap pipeline as one loadable unit (the entry of dist/src/cli/stap.bundle.js,
 * scripts/bundle-cli.ts): the `stap` command, and the pipeline that `stap` inside a `tapsim shell`
 * machine runs (src/cli/guest.ts, required when first asked for: the command alone never
 * needs the probe layer's machine glue).
 */
import type { GuestPipeline } from './guest';

export { runCli } from './stap';

export function guestPipeline(): GuestPipeline {
  return (require('./guest') as typeof import('./guest')).guestPipeline;
}
