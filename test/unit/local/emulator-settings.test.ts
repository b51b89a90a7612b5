import { emulatorSettingsFromEnv } from '../../../local/local-config';

describe('emulatorSettingsFromEnv (npm start and the admin CLI)', () => {
  it('starts its own emulators with the inkpress-local prefix when nothing is set', () => {
    expect(emulatorSettingsFromEnv({})).toEqual({ prefix: 'inkpress-local' });
    expect(emulatorSettingsFromEnv({ INKPRESS_RESOURCE_PREFIX: ' ' })).toEqual({ prefix: 'inkpress-local' });
  });

  it('attaches to both endpoints, with the prefix given', () => {
    expect(
      emulatorSettingsFromEnv({
        INKPRESS_DYNAMODB_ENDPOINT: 'http://localhost:8000/',
        INKPRESS_MOTO_ENDPOINT: 'http://127.0.0.1:5000',
        INKPRESS_RESOURCE_PREFIX: 'alice-dev',
      }),
    ).toEqual({
      prefix: 'alice-dev',
      attach: { dynamodb: 'http://localhost:8000', moto: 'http://127.0.0.1:5000' },
    });
  });

  it.each([
    [
      { INKPRESS_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' },
      /INKPRESS_DYNAMODB_ENDPOINT is set but INKPRESS_MOTO_ENDPOINT is not/,
    ],
    [
      { INKPRESS_MOTO_ENDPOINT: 'http://127.0.0.1:5000' },
      /INKPRESS_MOTO_ENDPOINT is set but INKPRESS_DYNAMODB_ENDPOINT is not/,
    ],
    [
      { INKPRESS_DYNAMODB_ENDPOINT: '127.0.0.1:8000', INKPRESS_MOTO_ENDPOINT: 'http://127.0.0.1:5000' },
      /INKPRESS_DYNAMODB_ENDPOINT must be an http\(s\) URL/,
    ],
    [
      {
        INKPRESS_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
        INKPRESS_MOTO_ENDPOINT: 'http://127.0.0.1:5000/moto',
      },
      /INKPRESS_MOTO_ENDPOINT must be an http\(s\) URL/,
    ],
    [
      { INKPRESS_RESOURCE_PREFIX: 'Alice' },
      /INKPRESS_RESOURCE_PREFIX: The resource prefix "Alice" is not valid/,
    ],
    [{ INKPRESS_RESOURCE_PREFIX: 'a'.repeat(41) }, /INKPRESS_RESOURCE_PREFIX/],
    [{ INKPRESS_RESOURCE_PREFIX: 'dev-' }, /INKPRESS_RESOURCE_PREFIX/],
    [{ INKPRESS_RESOURCE_PREFIX: '1dev' }, /INKPRESS_RESOURCE_PREFIX/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => emulatorSettingsFromEnv(env)).toThrow(message);
  });
});
