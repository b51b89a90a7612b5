/**
 * sharp, required on first use rather than at a cold start: it is a native module, kept out of
 * the bundles (an external of the functions that handle images, `lazy-modules.ts`), so a runtime
 * without its build makes images unavailable (refunded) instead of stopping the worker.
 */
import type SharpModule from 'sharp';

let loaded: typeof SharpModule | undefined;

export function sharp(): typeof SharpModule {
  loaded ??= require('sharp') as typeof SharpModule;
  return loaded;
}
