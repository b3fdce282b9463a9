import { isPlainText, isTimestamp, isUtcDay } from './field-validators';

describe('field validators', () => {
  it.each(['team-a', 'Équipe café ☕', '研究チーム', '👩‍💻 ops', ''])(
    'takes %j as plain text',
    (value) => {
      expect(isPlainText(value)).toBe(true);
    },
  );

  it.each([
    'a\u0000b',
    'tab\there',
    'line\nbreak',
    'cr\r',
    'del\u007f',
    'c1\u0085',
    'lone \ud800',
    '\udc00',
  ])('refuses %j as plain text', (value) => {
    expect(isPlainText(value)).toBe(false);
  });

  it.each(['1970-01-01', '2026-11-22', '2024-02-29', '9999-12-31'])('takes the day %s', (value) => {
    expect(isUtcDay(value)).toBe(true);
  });

  it.each([
    '0000-01-01',
    '1969-12-31',
    '2025-02-29',
    '2026-04-31',
    '2026-13-01',
    '10000-01-01',
    '2026-1-1',
    20261122,
  ])('refuses the day %j', (value) => {
    expect(isUtcDay(value)).toBe(false);
  });

  it.each([
    '2026-11-22',
    '2026-11-22T10:00:00Z',
    '2026-11-22T10:00:00.123+02:00',
    '9999-12-31T23:59:59Z',
  ])('takes the time %s', (value) => {
    expect(isTimestamp(value)).toBe(true);
  });

  it.each([
    '0000-01-01',
    '0001-01-01T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '+275760-09-13T00:00:00Z',
    '2026-W47',
    '2026-326',
    '2026-02-30T00:00:00Z',
    'yesterday',
    1795927618,
  ])('refuses the time %j', (value) => {
    expect(isTimestamp(value)).toBe(false);
  });
});
