/**
 * How a handler gets its dependencies: its `build` function makes the adapters its entry in the
 * route table declares, from the configuration (functions/shared/config.ts), once per process.
 *
 * In Lambda the environment is complete when the module loads, so composition runs at init and
 * a configuration error fails the cold start, naming the variable. Tests and the local runtime
 * load handlers before they set the environment, so there it runs on the first invocation.
 */
import { functionNamed } from '../routes';
import { type Config, loadConfig } from './config';

export interface Composed<Deps> {
  config: Config;
  deps: Deps;
}

/** The configuration and dependencies of the function named `functionName`, built once. */
export function composition<Deps>(
  functionName: string,
  build: (config: Config) => Deps,
): () => Composed<Deps> {
  const { access } = functionNamed(functionName);
  let built: Composed<Deps> | undefined;
  const composed = () => {
    if (!built) {
      const config = loadConfig(process.env, access);
      built = { config, deps: build(config) };
    }
    return built;
  };
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) composed();
  return composed;
}
