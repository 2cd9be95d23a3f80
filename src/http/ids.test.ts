import { describe, expect, it } from 'vitest';
import { UUID_PATTERN, uuid } from './ids.ts';

describe('the spec UUID rule', () => {
  it.each([
    ['version 1', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'],
    ['version 4', '9b2f4c1e-3d5a-4f6b-8c7d-0e1f2a3b4c5d'],
    ['version 7', '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091'],
    ['version 8', '0193a0b4-7c1d-8e2f-bfff-4c5d6e7f8091'],
    ['variant 9', '9b2f4c1e-3d5a-4f6b-9c7d-0e1f2a3b4c5d'],
    ['variant a', '9b2f4c1e-3d5a-4f6b-ac7d-0e1f2a3b4c5d'],
    ['upper case', '9B2F4C1E-3D5A-4F6B-BC7D-0E1F2A3B4C5D'],
    ['nil', '00000000-0000-0000-0000-000000000000'],
    ['max', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    ['max, upper case', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'],
  ])('accepts %s', (_name, value) => {
    expect(UUID_PATTERN.test(value)).toBe(true);
  });

  it.each([
    ['version 0', '9b2f4c1e-3d5a-0f6b-8c7d-0e1f2a3b4c5d'],
    ['version 9', '9b2f4c1e-3d5a-9f6b-8c7d-0e1f2a3b4c5d'],
    ['variant c', '9b2f4c1e-3d5a-4f6b-cc7d-0e1f2a3b4c5d'],
    ['variant 7', '9b2f4c1e-3d5a-4f6b-7c7d-0e1f2a3b4c5d'],
    ['no hyphens', '9b2f4c1e3d5a4f6b8c7d0e1f2a3b4c5d'],
    ['braces', '{9b2f4c1e-3d5a-4f6b-8c7d-0e1f2a3b4c5d}'],
    ['too long', '9b2f4c1e-3d5a-4f6b-8c7d-0e1f2a3b4c5d0'],
    ['non-hex', '9b2f4c1e-3d5a-4f6b-8c7d-0e1f2a3b4c5g'],
    ['empty', ''],
  ])('rejects %s', (_name, value) => {
    expect(UUID_PATTERN.test(value)).toBe(false);
  });

  it('normalises accepted ids to lower case', () => {
    expect(uuid().parse('9B2F4C1E-3D5A-4F6B-BC7D-0E1F2A3B4C5D')).toBe('9b2f4c1e-3d5a-4f6b-bc7d-0e1f2a3b4c5d');
    expect(uuid().safeParse('nope').success).toBe(false);
  });
});
