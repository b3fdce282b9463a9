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
