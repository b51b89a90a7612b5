/**
 * Work a handler's first request needs (building a large schema) done while that request's first
 * call is on the network rather than at init, where every cold start would wait for it: the
 * bytes of the call are sent, DynamoDB works on them, and this process builds meanwhile.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/** Published by Node's HTTP client for every request it starts (the AWS SDK's included). */
const REQUEST_START = 'http.client.request.start';

/**
 * Runs `work` once the next outgoing HTTP request has been sent (handed to the network), or once
 * `call` settles if that comes first (a call that fails before sending).
 */
export function whileOnTheNetwork(call: Promise<unknown>, work: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      unsubscribe(REQUEST_START, onRequestStart);
      try {
        work();
        resolve();
      } catch (error) {
        reject(error);
      }
    };
    const onRequestStart = (message: unknown) =>
      (message as { request: ClientRequest }).request.once('finish', () => setImmediate(run));
    subscribe(REQUEST_START, onRequestStart);
    call.then(run, run);
  });
}
