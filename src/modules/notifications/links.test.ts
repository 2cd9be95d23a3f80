import { describe, expect, it } from 'vitest';
import { notificationLink } from './notify.ts';

const APP = 'https://hub.example.com';

describe('the page a notification mail links to', () => {
  it('opens the meeting at the comment’s moment', () => {
    expect(
      notificationLink(APP, {
        targetType: 'comment',
        targetId: 'c1',
        data: { videoId: 'v1', timestamp: 75.6 },
      }),
    ).toBe(`${APP}/videos/v1?t=75`);
  });

  it('opens a video target without a moment at its start', () => {
    expect(notificationLink(APP, { targetType: 'video', targetId: 'v2', data: {} })).toBe(`${APP}/videos/v2`);
  });

  it('opens the inbox for anything else', () => {
    expect(notificationLink(APP, { targetType: 'organization', targetId: 'o1' })).toBe(
      `${APP}/notifications`,
    );
    expect(notificationLink(APP, { targetType: null, targetId: null })).toBe(`${APP}/notifications`);
  });
});
