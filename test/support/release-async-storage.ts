/**
 * Jest 30's runner (jest-circus) makes an AsyncLocalStorage for each test file and never
 * disables it. On Node 20 every enabled storage runs a hook at every promise and async resource
 * the process makes, so a worker's promises got slower with each file it had run (~60 per
 * worker in a whole run). Before each file, the storages the files before it enabled (all
 * finished by then) are disabled. From Node 22 storages no longer work this way (no `_enable`):
 * nothing to do.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Storage = AsyncLocalStorage<unknown> & { _enable?: () => void };
/** Kept on the class: core modules are shared by every test file a worker runs. */
const ENABLED = Symbol.for('inkpress.enabledAsyncLocalStorages');
const shared = AsyncLocalStorage as unknown as Record<symbol, Set<Storage> | undefined>;
const prototype = AsyncLocalStorage.prototype as Storage;
const enable = prototype._enable;

if (typeof enable === 'function') {
  let enabled = shared[ENABLED];
  if (!enabled) {
    const tracked = new Set<Storage>();
    prototype._enable = function (this: Storage) {
      tracked.add(this);
      enable.call(this);
    };
    shared[ENABLED] = tracked;
    enabled = tracked;
  }
  for (const storage of enabled) storage.disable();
  enabled.clear();
}
