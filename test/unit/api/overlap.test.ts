import { type ClientRequest, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { whileOnTheNetwork } from '../../../functions/api/http/overlap';

/** A server that answers only once `release` is called. */
function heldServer() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => void released.then(() => res.end('done')));
  });
  return { server, release };
}

/** The request (to see whether it has been sent) and its answer. */
function post(server: Server, body: string): { req: ClientRequest; answer: Promise<string> } {
  let req: ClientRequest | undefined;
  const answer = new Promise<string>((resolve, reject) => {
    req = request(
      { port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST' },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return { req: req as ClientRequest, answer };
}

describe('whileOnTheNetwork', () => {
  const held = heldServer();
  beforeAll(() => new Promise<void>((resolve) => held.server.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise<void>((resolve) => held.server.close(() => resolve())));

  it('does the work once the call has been sent, before its answer arrives', async () => {
    let answered = false;
    const { req, answer } = post(held.server, 'update-item');
    const call = answer.then(() => {
      answered = true;
    });
    let seenByWork: { sent: boolean; answered: boolean } | undefined;
    const worked = whileOnTheNetwork(call, () => {
      seenByWork = { sent: req.writableFinished, answered };
      // The server answers only now: the work ran while the call waited for it.
      held.release();
    });
    await Promise.all([call, worked]);
    expect(seenByWork).toEqual({ sent: true, answered: false });
  });

  it('does the work when the call fails before sending anything', async () => {
    const work = jest.fn();
    const call = Promise.reject(new Error('no credentials'));
    await expect(Promise.all([call, whileOnTheNetwork(call, work)])).rejects.toThrow('no credentials');
    await new Promise((resolve) => setImmediate(resolve));
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('does the work once however many requests start, and reports its failure', async () => {
    const second = heldServer();
    await new Promise<void>((resolve) => second.server.listen(0, '127.0.0.1', resolve));
    try {
      const work = jest.fn(() => {
        second.release();
        throw new Error('schema bug');
      });
      const calls = Promise.all([post(second.server, 'a').answer, post(second.server, 'b').answer]);
      await expect(whileOnTheNetwork(calls, work)).rejects.toThrow('schema bug');
      await calls;
      expect(work).toHaveBeenCalledTimes(1);
    } finally {
      await new Promise<void>((resolve) => second.server.close(() => resolve()));
    }
  });
});
