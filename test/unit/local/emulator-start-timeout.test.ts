import { emulatorStartTimeoutMs } from '../../../local/emulators';

describe('how long an emulator may take to listen', () => {
  it('is 30 s unless INKPRESS_EMULATOR_START_SECONDS says otherwise', () => {
    expect(emulatorStartTimeoutMs({})).toBe(30_000);
    expect(emulatorStartTimeoutMs({ INKPRESS_EMULATOR_START_SECONDS: '120' })).toBe(120_000);
    expect(emulatorStartTimeoutMs({ INKPRESS_EMULATOR_START_SECONDS: ' 45 ' })).toBe(45_000);
  });

  it.each(['', ' ', '0', '-5', '1.5', 'abc', '30s'])('ignores %j (30 s)', (value) => {
    expect(emulatorStartTimeoutMs({ INKPRESS_EMULATOR_START_SECONDS: value })).toBe(30_000);
  });
});
