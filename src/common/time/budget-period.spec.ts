import { budgetPeriodAt } from './budget-period';

describe('budgetPeriodAt (calendar periods in UTC)', () => {
  it('names the day and ends it at the next midnight UTC', () => {
    expect(budgetPeriodAt('day', Date.parse('2026-11-22T23:59:59.999Z'))).toEqual({
      id: '2026-11-22',
      endsAt: Date.parse('2026-11-23T00:00:00Z'),
    });
    expect(budgetPeriodAt('day', Date.parse('2026-11-23T00:00:00Z')).id).toBe('2026-11-23');
  });

  it('names the month and ends it on the 1st of the next one, across years and leap days', () => {
    expect(budgetPeriodAt('month', Date.parse('2026-12-31T12:00:00Z'))).toEqual({
      id: '2026-12',
      endsAt: Date.parse('2027-01-01T00:00:00Z'),
    });
    expect(budgetPeriodAt('day', Date.parse('2028-02-29T08:00:00Z'))).toEqual({
      id: '2028-02-29',
      endsAt: Date.parse('2028-03-01T00:00:00Z'),
    });
  });

  it('uses UTC whatever the local time zone says', () => {
    // 23:30 on the 31st in UTC-05:00 is already the 1st in UTC.
    expect(budgetPeriodAt('month', Date.parse('2026-10-31T23:30:00-05:00')).id).toBe('2026-11');
  });

  it('keeps a window only while the time asked about is inside it, in either direction', () => {
    const at = (period: 'day' | 'month', iso: string) => budgetPeriodAt(period, Date.parse(iso));
    const noon = at('day', '2026-11-22T12:00:00Z');
    expect(at('day', '2026-11-22T23:59:59.999Z')).toBe(noon);
    expect(at('day', '2026-11-23T00:00:00Z').id).toBe('2026-11-23');
    // A clock set back (a test's, or a corrected one) gets its own day, not the last one asked.
    expect(at('day', '2026-11-22T00:00:00Z').id).toBe('2026-11-22');
    expect(at('day', '2026-11-21T23:59:59.999Z').id).toBe('2026-11-21');
    expect(at('month', '2026-11-30T23:59:59.999Z').id).toBe('2026-11');
    expect(at('month', '2026-12-01T00:00:00Z').id).toBe('2026-12');
    expect(at('month', '2026-11-01T00:00:00Z')).toEqual({
      id: '2026-11',
      endsAt: Date.parse('2026-12-01T00:00:00Z'),
    });
    expect(at('month', '2026-10-31T23:59:59.999Z').id).toBe('2026-10');
  });
});
