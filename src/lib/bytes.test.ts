import { describe, expect, it } from 'vitest';
import { byteSize } from './bytes.ts';

describe('byteSize', () => {
  it('states sizes in MiB below a GiB and in GiB from there, to one decimal', () => {
    expect(byteSize(5 * 1024 ** 2)).toBe('5 MiB');
    expect(byteSize(25.8 * 1024 ** 2)).toBe('25.8 MiB');
    expect(byteSize(2 * 1024 ** 3)).toBe('2 GiB');
    expect(byteSize(1.25 * 1024 ** 3)).toBe('1.3 GiB');
  });
});
