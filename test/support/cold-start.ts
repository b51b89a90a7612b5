import * as path from 'node:path';

const repositoryRoot = path.resolve(__dirname, '..', '..');

/**
 * The handler of `entry` (relative to the repository root) loaded afresh, as a new Lambda with
 * the current environment would load it: a handler reads its configuration once per process,
 * so a test that changes the environment needs a new one.
 */
export function coldStartHandler<Handler>(entry: string): Handler {
  let handler: Handler | undefined;
  jest.isolateModules(() => {
    handler = (require(path.join(repositoryRoot, entry)) as { handler: Handler }).handler;
  });
  return handler as Handler;
}
