/**
 * The custom metrics as CloudWatch receives them (EMF lines on stdout inside Lambda), with the
 * namespace, dimension and names the stack's alarms watch; and silence outside Lambda.
 */
import { recordFinalGenerationFailure, recordFinalPublishFailure } from '../../../functions/shared/metrics';

const saved = { ...process.env };
let written: string[];

beforeEach(() => {
  written = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  jest.restoreAllMocks();
  process.env = { ...saved };
});

function emfLines(): Record<string, unknown>[] {
  return written
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('inside Lambda', () => {
  beforeEach(() => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'Inkpress-GenerationWorker';
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_DEV;
  });

  it.each([
    ['recordFinalGenerationFailure', recordFinalGenerationFailure, 'FinalGenerationFailures'],
    ['recordFinalPublishFailure', recordFinalPublishFailure, 'FinalPublishFailures'],
  ])(
    '%s writes one EMF line at once, in namespace Inkpress with dimension service',
    (_name, record, metric) => {
      record(3);
      const lines = emfLines();
      expect(lines).toHaveLength(1);
      const [line] = lines as [Record<string, unknown>];
      expect(line[metric]).toBe(3);
      expect(line.service).toBe('inkpress');
      expect(line._aws).toMatchObject({
        CloudWatchMetrics: [
          { Namespace: 'Inkpress', Dimensions: [['service']], Metrics: [{ Name: metric, Unit: 'Count' }] },
        ],
      });
    },
  );

  it('counts one by default and writes nothing for zero', () => {
    recordFinalGenerationFailure();
    recordFinalGenerationFailure(0);
    expect(emfLines().map((line) => line.FinalGenerationFailures)).toEqual([1]);
  });

  it('writes nothing when POWERTOOLS_METRICS_DISABLED is true', () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    recordFinalPublishFailure(1);
    expect(written).toEqual([]);
  });
});

it('writes nothing outside Lambda (npm start, tests)', () => {
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  delete process.env.POWERTOOLS_METRICS_DISABLED;
  recordFinalGenerationFailure(2);
  recordFinalPublishFailure(2);
  expect(written).toEqual([]);
});
