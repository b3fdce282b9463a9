import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Request } from 'express';
import { ResponseMode, responseModeOf } from './response-mode';

const withBody = (body: unknown) => ({ body }) as Request;

describe('responseModeOf', () => {
  it('picks the streaming handler for stream: true only', () => {
    expect(responseModeOf(withBody({ model: 'm', stream: true }))).toBe(ResponseMode.stream);
  });

  it.each([
    ['stream: false', { stream: false }],
    ['no stream field', { model: 'm' }],
    ['a string "true", which the JSON handler refuses as not a boolean', { stream: 'true' }],
    ['stream: 1', { stream: 1 }],
    ['an array body', [{ stream: true }]],
    ['a null body', null],
    ['no body', undefined],
  ])('picks the JSON handler for %s', (_case, body) => {
    expect(responseModeOf(withBody(body))).toBe(ResponseMode.json);
  });
});

describe('custom versioning', () => {
  // responseModeOf is the app's only version extractor (app.setup.ts): a route that declared a
  // version of its own would be routed by the body's `stream` flag. Only the wire formats, whose
  // routes answer JSON or a stream, may declare one.
  it('is used by wire-format controllers alone', () => {
    const src = join(__dirname, '..');
    const versioned = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.controller.ts'))
      .filter((file) => /@Version\(|VERSION_NEUTRAL/.test(readFileSync(join(src, file), 'utf8')));

    expect(versioned).toContain(
      join('formats', 'chat-completions', 'chat-completions.controller.ts'),
    );
    expect(versioned.filter((file) => !file.startsWith(`formats${sep}`))).toEqual([]);
  });
});
