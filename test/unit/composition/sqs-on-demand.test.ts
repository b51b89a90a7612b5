import { onFirstUse } from '../../../functions/composition/sqs-on-demand';
import { logger } from '../../../functions/shared/logger';

describe('onFirstUse', () => {
  afterEach(() => jest.restoreAllMocks());

  it('loads once, on the first call', async () => {
    let loads = 0;
    const client = onFirstUse('a client', () => ({ id: ++loads }));
    expect(loads).toBe(0);
    expect(await client()).toEqual({ id: 1 });
    expect(await client()).toEqual({ id: 1 });
    expect(loads).toBe(1);
  });

  it('rejects (never throws at the call) and logs when loading fails, then tries again', async () => {
    const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    let attempt = 0;
    const client = onFirstUse('the generation queue', () => {
      attempt++;
      if (attempt === 1) throw new Error("Cannot find module '@aws-sdk/client-sqs'");
      return 'loaded';
    });
    const first = client();
    expect(first).toBeInstanceOf(Promise);
    await expect(first).rejects.toThrow('Cannot find module');
    expect(errors).toHaveBeenCalledWith('Could not load the generation queue', {
      error: "Cannot find module '@aws-sdk/client-sqs'",
    });
    expect(await client()).toBe('loaded');
  });
});
