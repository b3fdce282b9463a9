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
});
