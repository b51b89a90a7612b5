/** CDK context: operators choose the provider models, an OpenAI-compatible server and the rate limit; developers a template for `sam local`. */
import { Template } from 'aws-cdk-lib/assertions';
import { allFunctions } from '../../functions/routes';
import { runtimeSettings } from '../../functions/shared/runtime-settings';
import { InkpressStack } from '../../lib/inkpress-stack';
import { templateOnlyApp } from '../support/template-only-context';

type FunctionResource = {
  Properties: { Handler?: string; Environment?: { Variables?: Record<string, unknown> } };
};

/**
 * The template synthesized with a context, once per context for the file (a synth takes seconds
 * and the tests only read it); a synth that throws is not kept, so each such test synthesizes.
 * Without CDK's built-in CloudFormation validation (its WebAssembly engine costs ~10 s of CPU per
 * test file and only ever warns): `npm run synth` (`.ci/run`'s synth step) runs it.
 */
const templates = new Map<string, Template>();
function synthesized(context: Record<string, string>): Template {
  const key = JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));
  const existing = templates.get(key);
  if (existing) return existing;
  const app = templateOnlyApp(context);
  const template = Template.fromStack(new InkpressStack(app, 'Inkpress'));
  templates.set(key, template);
  return template;
}

function functionEnvironments(context: Record<string, string>) {
  const functions = synthesized(context).findResources('AWS::Lambda::Function') as Record<
    string,
    FunctionResource
  >;
  return Object.entries(functions).map(([id, resource]) => ({
    id,
    variables: resource.Properties.Environment?.Variables ?? {},
  }));
}

describe('language-model settings', () => {
  it('passes context model settings to the generation worker only', () => {
    const environments = functionEnvironments({
      openaiBaseUrl: 'https://llm.example.com/v1',
      openaiModelGpt35Turbo: 'small-model',
      openaiModelGpt4: 'large-model',
    });
    const withModel = environments.filter(({ variables }) => 'OPENAI_SECRET_ARN' in variables);
    expect(withModel.map(({ id }) => id)).toEqual([expect.stringMatching(/^FunctionsGenerationWorker/)]);
    expect(withModel[0]?.variables).toMatchObject({
      OPENAI_BASE_URL: 'https://llm.example.com/v1',
      OPENAI_MODEL_GPT_3_5_TURBO: 'small-model',
      OPENAI_MODEL_GPT_4: 'large-model',
    });
    for (const { variables } of environments.filter(({ variables }) => !('OPENAI_SECRET_ARN' in variables))) {
      expect(Object.keys(variables).filter((name) => name.startsWith('OPENAI_'))).toEqual([]);
    }
  });

  it('sets no model overrides without context, so the worker uses its defaults', () => {
    const worker = functionEnvironments({}).find(({ id }) => id.startsWith('FunctionsGenerationWorker'));
    expect(Object.keys(worker?.variables ?? {}).filter((name) => name.startsWith('OPENAI_'))).toEqual([
      'OPENAI_SECRET_ARN',
    ]);
  });
});

describe('rate-limit settings', () => {
  it('passes context rate-limit settings to every API function and to nothing else', () => {
    const environments = functionEnvironments({ rateLimitPerSecond: '25', rateLimitBurst: '50' });
    const api = environments.filter(({ variables }) => 'RATE_LIMITS_TABLE' in variables);
    expect(api.length).toBeGreaterThan(10);
    for (const { variables } of api) {
      expect(variables).toMatchObject({
        INKPRESS_RATE_LIMIT_PER_SECOND: '25',
        INKPRESS_RATE_LIMIT_BURST: '50',
      });
    }
    for (const { variables } of environments.filter(({ variables }) => !('RATE_LIMITS_TABLE' in variables))) {
      expect(Object.keys(variables).filter((name) => name.startsWith('INKPRESS_RATE_LIMIT'))).toEqual([]);
    }
  });
});

describe('worker concurrency (-c workerMaxConcurrency=N)', () => {
  function generationMapping(context: Record<string, string>) {
    const mappings = synthesized(context).findResources('AWS::Lambda::EventSourceMapping') as Record<
      string,
      { Properties: { FunctionName: { Ref: string }; ScalingConfig?: unknown } }
    >;
    return Object.values(mappings).find(({ Properties }) =>
      Properties.FunctionName.Ref.startsWith('FunctionsGenerationWorker'),
    )?.Properties;
  }

  it('runs as many worker invocations at once as the operator sets, 10 without the setting', () => {
    expect(generationMapping({ workerMaxConcurrency: '25' })?.ScalingConfig).toEqual({
      MaximumConcurrency: 25,
    });
    expect(generationMapping({})?.ScalingConfig).toEqual({
      MaximumConcurrency: runtimeSettings.workerMaxConcurrency,
    });
  });

  it.each(['1', '1001', '2.5', 'ten', '-3'])('stops the synth on %j, naming the setting', (value) => {
    expect(() => generationMapping({ workerMaxConcurrency: value })).toThrow(
      /-c workerMaxConcurrency must be a whole number from 2 to 1000/,
    );
  });
});

describe('sam local (-c samLocal=true)', () => {
  const localOnly = [
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_SQS',
    'AWS_ENDPOINT_URL_KMS',
    'INKPRESS_LOCAL_MODE',
  ];

  it('declares, empty, the variables an env file points at the emulators with; the model key in the worker only', () => {
    const environments = functionEnvironments({ samLocal: 'true' });
    expect(environments).toHaveLength(allFunctions.length);
    for (const { id, variables } of environments) {
      for (const name of localOnly) expect(variables[name]).toBe('');
      // The image bucket's endpoint where the function reads or writes images.
      expect(variables.AWS_ENDPOINT_URL_S3 === '').toBe('IMAGE_BUCKET_NAME' in variables);
      const isWorker = id.startsWith('FunctionsGenerationWorker');
      expect('OPENAI_API_KEY' in variables).toBe(isWorker);
    }
  });

  it('declares none of them otherwise', () => {
    for (const { variables } of functionEnvironments({})) {
      expect(
        Object.keys(variables).filter((name) => [...localOnly, 'OPENAI_API_KEY'].includes(name)),
      ).toEqual([]);
    }
  });
});
