/** The demo library: where each hand-written meeting goes, and when it took place. */

export const DEMO_USER = {
  email: 'demo@example.com',
  password: 'knowledge-hub-demo',
  name: 'Maya Chen',
};

export const DEMO_ORGANIZATION = { name: 'Acme Demo', slug: 'acme-demo' };

export const CHANNELS = [
  { key: 'product', name: 'Product', description: 'Product syncs, roadmap and customer conversations.' },
  {
    key: 'engineering',
    name: 'Engineering',
    description: 'Design discussions, incidents and retrospectives.',
  },
  { key: 'design', name: 'Design', description: 'Design reviews and research read-outs.' },
] as const;

export type ChannelKey = (typeof CHANNELS)[number]['key'];

export const SERIES = {
  name: 'Weekly product sync',
  description: 'Every Monday: decisions, dates and owners for the product team.',
  cadence: 'weekly',
} as const;

export const PLAYLIST = {
  name: 'Onboarding',
  description: 'Watch these first: how the team decides, ships and learns from incidents.',
};

export type Meeting = {
  /** File name in meetings/, without `.txt`. */
  file: string;
  title: string;
  description: string;
  channel: ChannelKey;
  inSeries?: boolean;
  inPlaylist?: boolean;
  recordedAt: string;
};

export const MEETINGS: Meeting[] = [
  {
    file: 'weekly-sync-1',
    title: 'Weekly product sync — January 5',
    description: 'Search v2 date, offline mode postponed, onboarding checklist stays.',
    channel: 'product',
    inSeries: true,
    inPlaylist: true,
    recordedAt: '2026-01-05T09:00:00.000Z',
  },
  {
    file: 'design-review-onboarding',
    title: 'Design review: onboarding and the setup checklist',
    description: 'Session recordings of new admins; a guided setup proposed instead of the checklist.',
    channel: 'design',
    inPlaylist: true,
    recordedAt: '2026-01-08T14:00:00.000Z',
  },
  {
    file: 'weekly-sync-2',
    title: 'Weekly product sync — January 12',
    description: 'Search v2 moves to February 13 after the reindex load test.',
    channel: 'product',
    inSeries: true,
    recordedAt: '2026-01-12T09:00:00.000Z',
  },
  {
    file: 'incident-retro-search-outage',
    title: 'Incident retrospective: search outage of January 14',
    description: 'A migration lock took search down for 47 minutes; actions on migrations and alerting.',
    channel: 'engineering',
    inPlaylist: true,
    recordedAt: '2026-01-16T15:00:00.000Z',
  },
  {
    file: 'customer-call-northwind',
    title: 'Customer call: Northwind quarterly check-in',
    description: 'Search ranking pain, SAML single sign-on by March, channel export for legal.',
    channel: 'product',
    recordedAt: '2026-01-15T16:30:00.000Z',
  },
  {
    file: 'weekly-sync-3',
    title: 'Weekly product sync — January 19',
    description: 'Announcing the new ranking; an onboarding experiment instead of a decision.',
    channel: 'product',
    inSeries: true,
    recordedAt: '2026-01-19T09:00:00.000Z',
  },
  {
    file: 'engineering-transcript-pipeline',
    title: 'Engineering discussion: moving transcripts to a job queue',
    description: 'Replacing the five-minute sweep with idempotent jobs on the database queue.',
    channel: 'engineering',
    recordedAt: '2026-01-21T13:00:00.000Z',
  },
];
