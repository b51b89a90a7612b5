/**
 * Lets a plain-http test server stand for an https one: `https.request` goes to `http.request`
 * with the scheme swapped, so a guard's https hop (and where it redirects) can be tested without
 * certificates. Restore with the returned spy's `mockRestore()`.
 */
import http from 'node:http';
import https from 'node:https';

export function httpsServedAsHttp() {
  return jest.spyOn(https, 'request').mockImplementation(((url: URL, options: http.RequestOptions) => {
    const plain = new URL(url);
    plain.protocol = 'http:';
    return http.request(plain, options);
  }) as unknown as typeof https.request);
}
