import * as path from 'node:path';
import { CfnResource, type Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type ICommandHooks, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';
import type { FunctionDefinition } from '../../functions/routes';
import {
  BUNDLE_MAIN_FIELDS,
  BUNDLE_OPTIONS,
  BUNDLE_TARGET,
  ESBUILD_ALIASES,
  lazyModuleCommands,
  lazyModulesOf,
} from './lazy-modules';

/** The repository root: handler entries in the route table are relative to it. */
export const repositoryRoot = path.resolve(__dirname, '..', '..');

export const FUNCTION_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/** esbuild settings of a function (the bundle tests and bench:cold build with the same ones). */
export function esbuildSettingsOf(definition: FunctionDefinition) {
  return {
    target: BUNDLE_TARGET,
    mainFields: BUNDLE_MAIN_FIELDS,
    /**
     * The AWS SDK clients are bundled (minified, tree-shaken), which starts faster than requiring
     * the runtime's copy (`npm run bench:cold -- --compare-sdk`, docs/decisions.md). External: only
     * the function's lazy modules, each bundled on its own beside its bundle (`lazy-modules.ts`).
     */
    externalModules: [...lazyModulesOf(definition.access), ...nativeModulesOf(definition.access)],
    esbuildArgs: {
      '--alias': Object.entries(ESBUILD_ALIASES).map(([name, replacement]) => `${name}=${replacement}`),
    },
  };
}

/**
 * Native modules kept out of a bundle: sharp (image conversion), required on first use by the
 * functions that make images (`functions/adapters/images/sharp-loader.ts`). Their Lambda build
 * (linux, arm64, glibc) is installed beside the bundle (`nativeModuleCommands`).
 */
export function nativeModulesOf(access: FunctionDefinition['access']): string[] {
  return access.imageBucket === 'readWrite' ? ['sharp'] : [];
}

/**
 * The commands that install each native module the bundle requires, at the version package.json
 * pins, into the function's `node_modules` for Lambda's platform, whatever machine synthesizes (npm picks the
 * optional platform packages, e.g. `@img/sharp-linux-arm64`, by `--os`/`--cpu`/`--libc`).
 */
export function nativeModuleCommands(outputDir: string, modules: readonly string[]): string[] {
  const pinned: Record<string, string> = require(path.join(repositoryRoot, 'package.json')).dependencies;
  return modules.map((name) => {
    const version = pinned[name];
    if (!version) throw new Error(`${name} must be a dependency in package.json to be deployed`);
    const install = [
      `npm install --prefix "${outputDir}" --no-save --no-package-lock --no-audit --no-fund`,
      `--os=linux --cpu=arm64 --libc=glibc ${name}@${version}`,
    ].join(' ');
    // Only where the bundle requires it (the sweeper keeps sharp external but never loads it).
    return `if grep -qF 'require("${name}")' "${path.join(outputDir, 'index.js')}"; then ${install}; fi`;
  });
}

/** The esbuild options every function's build shares: all but its externals. */
export const BUILD_OPTIONS = { ...BUNDLE_OPTIONS, absWorkingDir: repositoryRoot } satisfies BuildOptions;

/**
 * What the stack's bundling of a function amounts to, as esbuild options: for the bundle tests
 * and `bench:cold`, which build functions without CDK (callers add the entry point, output,
 * metafile and logging).
 */
export function functionBuildOptions(definition: FunctionDefinition) {
  return { ...BUILD_OPTIONS, external: esbuildSettingsOf(definition).externalModules } satisfies BuildOptions;
}

/**
 * What goes beside a function's bundle: the files it reads at run time (under their own file
 * name), the lazy modules it requires and its native modules.
 */
export function besideTheBundle(definition: FunctionDefinition): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => [
      ...(definition.bundledFiles ?? []).map(
        (file) => `cp "${path.join(inputDir, file)}" "${path.join(outputDir, path.basename(file))}"`,
      ),
      ...lazyModuleCommands(inputDir, outputDir, lazyModulesOf(definition.access)),
      ...nativeModuleCommands(outputDir, nativeModulesOf(definition.access)),
    ],
  };
}

/**
 * Environment every function gets. No `--enable-source-maps`: Node then reads and parses the
 * bundle's source map at load (+34 ms on a bundled DynamoDB client, docs/decisions.md); the maps
 * are still deployed beside the bundles to decode a stack trace.
 */
export const BASE_ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: 'inkpress',
};

export interface InkpressFunctionProps {
  definition: FunctionDefinition;
  timeout: Duration;
  memorySize: number;
  environment: Record<string, string>;
  /** Reserved concurrency (e.g. 1: never two runs at once). */
  reservedConcurrentExecutions?: number;
  /** Asynchronous invocations (schedules): how long an event may wait, and retries after an error. */
  asyncInvoke?: { maxEventAge: Duration; retryAttempts: number };
}

/**
 * One Lambda of the service, bundled on its own by esbuild: Node.js 22 on arm64, minified
 * with source maps, its own log group with retention, and its own role that starts with
 * nothing but writing to that log group (no AWS managed policy); grants are added per use.
 */
export class InkpressFunction extends NodejsFunction {
  readonly definition: FunctionDefinition;
  readonly functionLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: InkpressFunctionProps) {
    const functionLogGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: FUNCTION_LOG_RETENTION });
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Inkpress ${props.definition.name} function`,
    });
    functionLogGroup.grantWrite(role);
    const settings = esbuildSettingsOf(props.definition);

    super(scope, id, {
      entry: path.join(repositoryRoot, props.definition.entry),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: path.join(repositoryRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      ...props.asyncInvoke,
      role,
      logGroup: functionLogGroup,
      description: `Inkpress ${props.definition.name}`,
      environment: { ...BASE_ENVIRONMENT, ...props.environment },
      bundling: {
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        format: OutputFormat.CJS,
        ...settings,
        commandHooks: besideTheBundle(props.definition),
      },
    });
    this.definition = props.definition;
    this.functionLogGroup = functionLogGroup;

    // The function must wait for its role's policy (an SQS event source mapping checks it), but
    // depending on the role itself is redundant with the `Role` GetAtt (cfn-lint W3005).
    const policy = role.node.tryFindChild('DefaultPolicy')?.node.defaultChild;
    if (policy instanceof CfnResource) {
      (this.node.defaultChild as CfnResource).addOverride('DependsOn', [policy.logicalId]);
    }
  }
}
