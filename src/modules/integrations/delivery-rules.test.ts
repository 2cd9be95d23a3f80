import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './addresses.ts';
import { retryDelaySeconds } from './deliveries.ts';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700::1111', '2001:4860:4860::8888'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '::10.0.0.1',
    'not an address',
    '',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('judges the edges of the private ranges', () => {
    expect(isPublicAddress('172.15.255.255')).toBe(true);
    expect(isPublicAddress('172.32.0.0')).toBe(true);
    expect(isPublicAddress('100.63.255.255')).toBe(true);
    expect(isPublicAddress('100.128.0.0')).toBe(true);
    expect(isPublicAddress('11.0.0.0')).toBe(true);
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
  });
});

describe('retryDelaySeconds', () => {
  const low = () => 0;
  const high = () => 1;

  it('waits 15 to 30 s after the first attempt, with half the delay random', () => {
    expect(retryDelaySeconds(1, low)).toBe(15);
    expect(retryDelaySeconds(1, high)).toBe(30);
    expect(retryDelaySeconds(1, () => 0.5)).toBe(23);
  });

  it('doubles with every attempt', () => {
    const lows = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((attempt) => retryDelaySeconds(attempt, low));
    const highs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((attempt) => retryDelaySeconds(attempt, high));
    expect(lows).toEqual([15, 30, 60, 120, 240, 480, 960, 1920, 3840, 7680]);
    expect(highs).toEqual([30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360]);
  });

  it('stops growing at 6 hours', () => {
    for (const attempt of [11, 12, 20, 100, 2000]) {
      expect(retryDelaySeconds(attempt, high)).toBe(6 * 3600);
      expect(retryDelaySeconds(attempt, low)).toBe(3 * 3600);
    }
  });

  it('stays within its bounds with the default random source', () => {
    for (let i = 0; i < 200; i++) {
      const delay = retryDelaySeconds(3);
      expect(delay).toBeGreaterThanOrEqual(60);
      expect(delay).toBeLessThanOrEqual(120);
    }
  });
});
