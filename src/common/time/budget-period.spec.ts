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
});
