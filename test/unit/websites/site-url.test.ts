import { ValidationError } from '../../../functions/core/errors';
import {
  MAX_NORMALIZED_URL_BYTES,
  normalizeSiteUrl,
  siteUrlIdentity,
} from '../../../functions/core/websites/site-url';

const TOO_LONG =
  'The url may not be longer than 900 characters once normalised (a character outside ASCII counts as several).';

describe('normalizeSiteUrl', () => {
  it.each([
    ['https://Blog.Example.COM/', 'https://blog.example.com', 'blog.example.com'],
    ['HTTPS://blog.example.com', 'https://blog.example.com', 'blog.example.com'],
    ['  http://blog.example.com//  ', 'http://blog.example.com', 'blog.example.com'],
    ['https://blog.example.com:443/wp/', 'https://blog.example.com/wp', 'blog.example.com/wp'],
    ['http://blog.example.com:80', 'http://blog.example.com', 'blog.example.com'],
    [
      'http://blog.example.com:8080/My-Site',
      'http://blog.example.com:8080/My-Site',
      'blog.example.com:8080/My-Site',
    ],
    ['https://blog.example.com./', 'https://blog.example.com', 'blog.example.com'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['https://blog.example.com/a/../b/', 'https://blog.example.com/b', 'blog.example.com/b'],
    [
      'http://blog.example.com/%64upe/%7euser',
      'http://blog.example.com/dupe/~user',
      'blog.example.com/dupe/~user',
    ],
    [
      'http://blog.example.com/a%2fb%c3%a9',
      'http://blog.example.com/a%2Fb%C3%A9',
      'blog.example.com/a%2Fb%C3%A9',
    ],
  ])('%s -> %s', (input, url, identity) => {
    expect(normalizeSiteUrl(input)).toEqual({ url, identity });
    expect(siteUrlIdentity(url)).toBe(identity);
  });

  it.each([
    ['blog.example.com', 'The url must be a full address starting with http:// or https://.'],
    ['ftp://blog.example.com', 'The url must be a full address starting with http:// or https://.'],
    ['javascript:alert(1)', 'The url must be a full address starting with http:// or https://.'],
    [
      'https://user:pw@blog.example.com',
      'The url may not contain a user name or password; send them as login and password.',
    ],
    ['https://blog.example.com/?p=1', 'The url may not contain a query string.'],
    ['https://blog.example.com/?', 'The url may not contain a query string.'],
    ['https://blog.example.com/#x', 'The url may not contain a fragment (#).'],
    ['http://exa mple.com', 'The url is not a valid address.'],
    [`https://blog.example.com/${'a'.repeat(2000)}`, 'The url may not be longer than 2000 characters.'],
    [`https://blog.example.com/${'a'.repeat(1500)}`, TOO_LONG],
    // 200 characters given, 1,200 bytes once percent-encoded: the stored form is what counts.
    [`https://blog.example.com/${'é'.repeat(200)}`, TOO_LONG],
  ])('refuses %s', (input, message) => {
    let caught: unknown;
    try {
      normalizeSiteUrl(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).fieldErrors).toEqual({ url: [message] });
  });

  it('gives http and https of one address the same identity', () => {
    expect(normalizeSiteUrl('http://blog.example.com').identity).toBe(
      normalizeSiteUrl('https://blog.example.com/').identity,
    );
  });

  it('accepts a normalised url of exactly 900 bytes, the most its storage key can hold', () => {
    const prefix = 'https://blog.example.com/';
    const url = `${prefix}${'a'.repeat(MAX_NORMALIZED_URL_BYTES - prefix.length)}`;
    expect(normalizeSiteUrl(url).url).toBe(url);
    expect(() => normalizeSiteUrl(`${url}b`)).toThrow(ValidationError);
  });
});
