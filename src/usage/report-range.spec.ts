import fc from 'fast-check';
import { DAY_MS, splitRange, type RollupDepth } from './report-range';

const HOUR_MS = 3_600_000;

/** Every piece of a split range as [from, to) milliseconds, with the unit it must be whole in. */
function pieces(from: Date, to: Date, depth: RollupDepth) {
  const split = splitRange(from, to, depth);
  const day = (text: string) => Date.parse(`${text}T00:00:00Z`);
  return [
    ...(split.weeks
      ? [{ unit: 7 * DAY_MS, from: day(split.weeks.from), to: day(split.weeks.to) }]
      : []),
    ...split.days.map((d) => ({ unit: DAY_MS, from: day(d.from), to: day(d.to) })),
    ...split.hours.map((h) => ({ unit: HOUR_MS, from: h.from.getTime(), to: h.to.getTime() })),
    ...split.raw.map((r) => ({ unit: 1, from: r.from.getTime(), to: r.to.getTime() })),
  ];
}

describe('splitRange', () => {
  const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2031, 0, 1) });

  it('covers [from, to) exactly once, in whole weeks, days and hours, with raw rows only for the partial hours', () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 1, max: 400 * DAY_MS }),
        fc.constantFrom<RollupDepth>('weeks', 'days', 'hours', 'raw'),
        (start, length, depth) => {
          const from = new Date(start);
          const to = new Date(start + length);
          const parts = pieces(from, to, depth).sort((a, b) => a.from - b.from);
          expect(parts[0].from).toBe(from.getTime());
          expect(parts[parts.length - 1].to).toBe(to.getTime());
          for (let i = 1; i < parts.length; i++) expect(parts[i].from).toBe(parts[i - 1].to);
          for (const part of parts) {
            expect(part.from).toBeLessThan(part.to);
            // Whole units, aligned (weeks since 1970-01-01, a Thursday, as the rollup stores them).
            expect(part.from % part.unit).toBe(0);
            expect(part.to % part.unit).toBe(0);
          }
          // Raw records for less than an hour at each end, unless buckets under an hour want them.
          const raw = parts.filter((part) => part.unit === 1);
          if (depth !== 'raw')
            for (const part of raw) expect(part.to - part.from).toBeLessThan(HOUR_MS);
          if (depth === 'hours') expect(parts.every((part) => part.unit <= HOUR_MS)).toBe(true);
          if (depth === 'days') expect(parts.every((part) => part.unit <= DAY_MS)).toBe(true);
        },
      ),
    );
  });

  it('cuts a month-long range ending mid-afternoon into weeks, days, hours and two partial hours', () => {
    const split = splitRange(new Date('2026-10-30T04:48:38Z'), new Date('2026-11-29T15:20:00Z'));
    expect(split).toEqual({
      weeks: { from: '2026-11-05', to: '2026-11-26' },
      days: [
        { from: '2026-10-31', to: '2026-11-05' },
        { from: '2026-11-26', to: '2026-11-29' },
      ],
      hours: [
        { from: new Date('2026-10-30T05:00:00Z'), to: new Date('2026-10-31T00:00:00Z') },
        { from: new Date('2026-11-29T00:00:00Z'), to: new Date('2026-11-29T15:00:00Z') },
      ],
      raw: [
        { from: new Date('2026-10-30T04:48:38Z'), to: new Date('2026-10-30T05:00:00Z') },
        { from: new Date('2026-11-29T15:00:00Z'), to: new Date('2026-11-29T15:20:00Z') },
      ],
    });
  });
});
