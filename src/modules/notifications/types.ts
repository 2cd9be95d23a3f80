/**
 * The kinds of notification and what a person gets for each until they choose otherwise.
 * `email: 'always'` marks a type whose mail is sent by its own module whatever the preference
 * (an invitation mail carries the token the invitee needs, and the invitee may have no account).
 */
export const NOTIFICATION_TYPES = {
  comment: { description: 'Someone commented on a video you made', inApp: true, email: true },
  reply: { description: 'Someone replied to your comment', inApp: true, email: true },
  mention: { description: 'Someone mentioned you in a comment', inApp: true, email: true },
  channel_video: { description: 'A new video in a channel you follow', inApp: true, email: false },
  invitation: { description: 'You were invited to an organization', inApp: true, email: 'always' },
  role_change: { description: 'Your role in an organization changed', inApp: true, email: true },
  ai_budget: {
    description: 'An organization you administer used 80 % or all of its monthly AI credits',
    inApp: true,
    email: true,
  },
  billing: {
    description:
      'The billing of an organization you own: payments, plan and seat changes, a cancellation, all seats taken',
    inApp: true,
    email: true,
  },
  integration: {
    description:
      'A webhook or Slack integration of an organization you administer was disabled after failing for days',
    inApp: true,
    email: true,
  },
} as const satisfies Record<string, { description: string; inApp: boolean; email: boolean | 'always' }>;

export type NotificationType = keyof typeof NOTIFICATION_TYPES;

export const notificationTypes = Object.keys(NOTIFICATION_TYPES) as [NotificationType, ...NotificationType[]];

/** Whether a person may turn the type's email off (see `email: 'always'`). */
export const emailIsOptional = (type: NotificationType) => NOTIFICATION_TYPES[type].email !== 'always';
