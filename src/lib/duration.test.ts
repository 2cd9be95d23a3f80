import { describe, expect, it } from 'vitest';
import { clockDuration, durationToSeconds } from './duration.ts';

describe('durationToSeconds', () => {
  it.each([
    ['754', 754],
    ['754s', 754],
    ['754 S', 754],
    ['12.5', 12.5],
    ['12:34', 754],
    ['0:05', 5],
    ['1:02:03', 3723],
    ['10:00:00.5', 36000.5],
    ['PT1H2M3S', 3723],
    ['PT45M', 2700],
    ['PT0.5S', 0.5],
    ['P1DT1S', 86401],
    ['pt2m', 120],
  ])('reads %s as %d seconds', (text, seconds) => {
    expect(durationToSeconds(text)).toBe(seconds);
  });

  it.each(['', 'abc', '12:60', '1:60:00', 'PT', 'P', '-5', '1:2:3:4', 'five minutes', '12:34:'])(
    'returns null for %j',
    (text) => {
      expect(durationToSeconds(text)).toBeNull();
    },
  );
});

describe('clockDuration', () => {
  it('writes whole seconds as m:ss, or h:mm:ss from an hour', () => {
    expect(clockDuration(0)).toBe('0:00');
    expect(clockDuration(75)).toBe('1:15');
    expect(clockDuration(3725)).toBe('1:02:05');
  });
});
