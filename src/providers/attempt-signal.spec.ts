import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { AttemptSignal, standardSignal } from './attempt-signal';

describe('AttemptSignal', () => {
  it('calls each listener once, in order, with aborted and reason already set', () => {
    const signal = new AttemptSignal();
    const seen: string[] = [];
    const reason = new Error('deadline');
    signal.addEventListener('abort', () => seen.push(`first ${signal.aborted} ${signal.reason}`));
    signal.addEventListener('abort', () => seen.push('second'), { once: true });
    expect(signal.aborted).toBe(false);
    signal.abort(reason);
    signal.abort(new Error('a second abort'));
    expect(seen).toEqual(['first true Error: deadline', 'second']);
    expect(signal.reason).toBe(reason);
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const signal = new AttemptSignal();
    const removed = jest.fn();
    const kept = jest.fn();
    signal.addEventListener('abort', removed);
    signal.addEventListener('abort', kept);
    signal.removeEventListener('abort', removed);
    signal.abort('gone');
    const late = jest.fn();
    signal.addEventListener('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
  });

  it('runs every listener when one throws, then rethrows the first exception', () => {
    const signal = new AttemptSignal();
    const after = jest.fn();
    signal.addEventListener('abort', () => {
      throw new Error('first failure');
    });
    signal.addEventListener('abort', () => {
      throw new Error('second failure');
    });
    signal.addEventListener('abort', after);
    expect(() => signal.abort('gone')).toThrow('first failure');
    expect(after).toHaveBeenCalledTimes(1);
    expect(signal.aborted).toBe(true);
  });

  it('is handed to a library as a standard AbortSignal that follows it', () => {
    const attempt = new AttemptSignal();
    const standard = standardSignal(attempt);
    expect(standard).toBeInstanceOf(AbortSignal);
    expect(standard.aborted).toBe(false);
    const reason = new Error('client gone');
    attempt.abort(reason);
    expect(standard.aborted).toBe(true);
    expect(standard.reason).toBe(reason);
    const already = new AttemptSignal();
    already.abort(reason);
    expect(standardSignal(already).reason).toBe(reason);
    const own = new AbortController().signal;
    expect(standardSignal(own)).toBe(own);
  });

  describe('through standardSignal(), as the signal of an undici request', () => {
    let server: Server;
    let origin: string;
    let arrived: Promise<IncomingMessage>;
    const agent = new Agent();

    beforeEach(async () => {
      let onArrival!: (request: IncomingMessage) => void;
      arrived = new Promise((resolve) => (onArrival = resolve));
      // Answers headers and one chunk, then holds the body open: only an abort ends it.
      server = createServer((request, response) => {
        onArrival(request);
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('partial');
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterEach(async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    });

    afterAll(() => agent.close());

    it('cancels a request waiting for its headers with the reason, and closes the connection', async () => {
      server.removeAllListeners('request');
      server.on('request', (request: IncomingMessage) => {
        // Never answers.
        void request;
      });
      const signal = new AttemptSignal();
      const reason = new Error('client gone');
      const answer = agent.request({
        origin,
        path: '/',
        method: 'POST',
        body: '{}',
        signal: standardSignal(signal),
      });
      const [request] = (await once(server, 'request')) as [IncomingMessage];
      const closed = once(request.socket, 'close');
      signal.abort(reason);
      await expect(answer).rejects.toBe(reason);
      await closed;
    });

    it('destroys a body being read with the reason, and closes the connection', async () => {
      const signal = new AttemptSignal();
      const reason = new Error('deadline passed');
      const answer = await agent.request({
        origin,
        path: '/',
        method: 'POST',
        body: '{}',
        signal: standardSignal(signal),
      });
      const request = await arrived;
      const closed = once(request.socket, 'close');
      const text = answer.body.text();
      signal.abort(reason);
      await expect(text).rejects.toBe(reason);
      await closed;
    });
  });
});
