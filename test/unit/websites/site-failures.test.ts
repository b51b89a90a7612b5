import { CmsError } from '../../../functions/core/websites/cms-client';
import { healthAfterFailure, registrationError } from '../../../functions/core/websites/site-failures';

describe('healthAfterFailure', () => {
  it('clears is_unreachable when the plugin itself answered with an error (it is reachable)', () => {
    const error = new CmsError(
      'plugin_error',
      'The plugin failed (inkpress_insert_failed)',
      500,
      'inkpress_insert_failed',
    );
    expect(healthAfterFailure(error)).toEqual({ isUnreachable: false });
  });

  it('sets is_unreachable when the site could not be reached', () => {
    expect(healthAfterFailure(new CmsError('unreachable', 'Could not reach x (ECONNREFUSED)'))).toEqual({
      isUnreachable: true,
    });
  });
});

describe('registrationError', () => {
  it('says the plugin answered with an error, on url', () => {
    const error = new CmsError('plugin_error', 'The plugin failed (inkpress_busy)', 503, 'inkpress_busy');
    expect(registrationError(error, 'inkpress').fieldErrors).toEqual({
      url: [
        'The Inkpress Connector plugin on this site answered with an error (The plugin failed (inkpress_busy)); try again later.',
      ],
    });
  });
});
