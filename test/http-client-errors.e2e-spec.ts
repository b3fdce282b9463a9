import { connect } from 'node:net';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';
import { expectEnvelope } from './support/envelope';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes no HTTP client would send, and reads until the gateway closes the connection. */
function sendRaw(url: string, bytes: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

function expectRawEnvelope(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
  expectEnvelope(JSON.parse(response.body), code, {
    message: expect.any(String),
    type: 'invalid_request_error',
    source: 'gateway',
  });
}

describe("errors Node's HTTP server answers itself are in the envelope too", () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp();
  });
  afterAll(() => gateway.close());

  it('431 headers_too_large for 20 KB of headers', async () => {
    const response = await sendRaw(
      gateway.url,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectRawEnvelope(response, 431, 'headers_too_large');
  });

  it('400 malformed_request for a Content-Length that is not a number', async () => {
    const response = await sendRaw(
      gateway.url,
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}',
    );
    expectRawEnvelope(response, 400, 'malformed_request');
  });

  it('400 malformed_request for a malformed request line', async () => {
    const response = await sendRaw(gateway.url, 'HELLO THERE\r\n\r\n');
    expectRawEnvelope(response, 400, 'malformed_request');
  });

  it('417 expectation_failed for an Expect other than 100-continue', async () => {
    const response = await sendRaw(
      gateway.url,
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-foo\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expectRawEnvelope(response, 417, 'expectation_failed');
  });

  it('415 naming an unsupported Content-Encoding', async () => {
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${await gateway.createKey()}`)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'compress')
      .send('{}');
    expect(response.status).toBe(415);
    expect(response.body.error).toMatchObject({
      code: 'unsupported_media_type',
      type: 'invalid_request_error',
    });
    expect(response.body.error.message).toContain('Content-Encoding "compress" is not supported');
  });
});
