/** The operator's credit grants: whole numbers, and a balance that stays an exact number. */
import { addCredits, createAccount, MAX_CREDITS } from '../../../functions/core/accounts';
import { createFakes } from '../../support/fakes';

describe('credits', () => {
  it('adds up to the largest balance and refuses a grant past it, changing nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(MAX_CREDITS - 10);

    expect((await addCredits(fakes, { accountId, amount: 10 })).credits).toBe(MAX_CREDITS);
    await expect(addCredits(fakes, { accountId, amount: 1 })).rejects.toMatchObject({
      fieldErrors: { amount: [`The balance may not pass ${MAX_CREDITS} credits.`] },
    });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(MAX_CREDITS);
    expect(Number.isSafeInteger(MAX_CREDITS * 2)).toBe(true); // a refund on top stays exact too
  });

  it('refuses an account created over the largest balance', async () => {
    const fakes = createFakes();
    await expect(createAccount(fakes, { name: 'Rich', credits: MAX_CREDITS + 1 })).rejects.toMatchObject({
      fieldErrors: { credits: [`The balance may not pass ${MAX_CREDITS} credits.`] },
    });
  });

  it.each([
    ['an escape sequence', 'Ctl\u001b[31mRED', 'The name must be text without control characters.'],
    ['a line break', 'two\nlines', 'The name must be text without control characters.'],
    [
      'a replacement character (bytes that were not UTF-8)',
      'caf\uFFFD',
      'The name must be text without control characters.',
    ],
    ['a lone surrogate', 'x\uD800', 'The name must be text without control characters.'],
    ['nothing visible', '\u200B', 'The name is required.'],
    ['201 characters', 'n'.repeat(201), 'The name may not be longer than 200 characters.'],
  ])('refuses an account name with %s, creating nothing', async (_case, name, message) => {
    const fakes = createFakes();
    await expect(createAccount(fakes, { name, credits: 1 })).rejects.toMatchObject({
      fieldErrors: { name: [message] },
    });
    expect(fakes.tables.accounts.size).toBe(0);
  });
});
