import { readFile } from 'node:fs/promises';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { qmsumTranscript } from '../scripts/seed/qmsum.ts';
import { seed, thingsToTry } from '../scripts/seed/seed.ts';
import {
  activityEvents,
  channels,
  collections,
  series,
  transcriptSegments,
  videos,
} from '../src/db/schema/index.ts';
import { useTestApp } from './helpers/app.ts';

const FIXTURES = new URL('./fixtures/qmsum/', import.meta.url);

describe('npm run seed', () => {
  const ctx = useTestApp();

  it("prints what to try against the service's own address, signing in first", () => {
    const lines = thingsToTry('http://localhost:3997', 'demo@example.com', 'secret-pass');
    expect(lines[0]).toMatch(
      /^T=\$\(curl -s http:\/\/localhost:3997\/auth\/sign-in .*"email":"demo@example.com","password":"secret-pass"/,
    );
    for (const line of lines) expect(line).toContain('http://localhost:3997/');
    expect(lines.join('\n')).not.toContain('localhost:3000');
    // The questions the walk-through pins (test/seed-walkthrough.test.ts).
    for (const question of [
      'Why did search go down on January 14?',
      'What did we decide about search v2?',
      'Who owns the lock alert?',
      'What happened at the design review?',
    ])
      expect(lines.join('\n')).toContain(`"question":"${question}"`);
  });

  const countOf = async (
    table: typeof videos | typeof channels | typeof series | typeof collections,
    organizationId: string,
  ) => {
    const [row] = await ctx()
      .database.db.select({ n: count() })
      .from(table)
      .where(eq(table.organizationId, organizationId));
    return row?.n;
  };

  it('creates the demo library through the API, and a re-run creates nothing', async () => {
    const first = await seed(ctx().app);
    expect(first.created).toEqual({ channels: 3, series: 1, videos: 7, collections: 1, qmsumVideos: 0 });
    const { organizationId } = first;
    expect(await countOf(videos, organizationId)).toBe(7);
    expect(await countOf(channels, organizationId)).toBe(3);
    expect(await countOf(series, organizationId)).toBe(1);
    expect(await countOf(collections, organizationId)).toBe(1);

    // Transcripts were parsed into speaker segments.
    const [segments] = await ctx()
      .database.db.select({ n: count() })
      .from(transcriptSegments)
      .innerJoin(videos, eq(videos.id, transcriptSegments.videoId))
      .where(eq(videos.organizationId, organizationId));
    expect(segments?.n).toBeGreaterThan(100);

    const signIn = await ctx().app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: first.email, password: first.password },
    });
    expect(signIn.statusCode).toBe(200);
    const headers = { authorization: `Bearer ${signIn.json().data.session.sessionId}` };
    const playlists = await ctx().app.inject({
      method: 'GET',
      url: `/collections?organizationId=${organizationId}`,
      headers,
    });
    const [onboarding] = playlists.json().data;
    expect(onboarding).toMatchObject({ name: 'Onboarding', type: 'playlist' });
    const playlist = await ctx().app.inject({ method: 'GET', url: `/collections/${onboarding.id}`, headers });
    expect(playlist.json().videos.map((video: { title: string }) => video.title)).toEqual([
      'Weekly product sync — January 5',
      'Design review: onboarding and the setup checklist',
      'Incident retrospective: search outage of January 14',
    ]);
    const weekly = await ctx().app.inject({
      method: 'GET',
      url: `/videos?organizationId=${organizationId}&limit=100`,
      headers,
    });
    expect(weekly.json().data.filter((video: { seriesId: string | null }) => video.seriesId)).toHaveLength(3);

    const [events] = await ctx()
      .database.db.select({ n: count() })
      .from(activityEvents)
      .where(eq(activityEvents.organizationId, organizationId));

    const again = await seed(ctx().app);
    expect(again).toEqual({
      ...first,
      created: { channels: 0, series: 0, videos: 0, collections: 0, qmsumVideos: 0 },
    });
    expect(await countOf(videos, organizationId)).toBe(7);
    const [eventsAfter] = await ctx()
      .database.db.select({ n: count() })
      .from(activityEvents)
      .where(eq(activityEvents.organizationId, organizationId));
    expect(eventsAfter?.n).toBe(events?.n);
  });

  it('imports QMSum meetings into a QMSum channel, up to the limit, once', async () => {
    const dir = new URL('.', FIXTURES).pathname;
    const limited = await seed(ctx().app, { qmsumDir: dir, qmsumLimit: 1 });
    expect(limited.created).toMatchObject({ channels: 1, qmsumVideos: 1 });
    const all = await seed(ctx().app, { qmsumDir: dir });
    expect(all.created).toMatchObject({ channels: 0, videos: 0, qmsumVideos: 1 });
    const imported = await ctx()
      .database.db.select({ title: videos.title, transcript: videos.transcript, channel: channels.name })
      .from(videos)
      .innerJoin(channels, eq(channels.id, videos.channelId))
      .where(eq(channels.name, 'QMSum'))
      .orderBy(videos.title);
    expect(imported.map((video) => video.title)).toEqual([
      'QMSum meeting tiny-001',
      'QMSum meeting tiny-002',
    ]);
    expect(imported[0]?.transcript).not.toContain('{');
  });

  it('turns QMSum turns into timestamped speaker lines at 150 words a minute', async () => {
    const json = JSON.parse(await readFile(new URL('tiny-001.json', FIXTURES), 'utf8'));
    const meeting = qmsumTranscript(json, 'Remote');
    expect(meeting?.transcript.split('\n')).toEqual([
      '[00:00:00] Project Manager: Okay let us start with the buttons on the remote.',
      '[00:00:04] Industrial Designer: I think we need fewer buttons. Five would be enough for most people.',
      '[00:00:09] Marketing: Our survey says people lose the remote more than they use the buttons.',
      '[00:00:14] Project Manager: Then we decide on five buttons and a locator beep.',
    ]);
    expect(meeting?.words).toBe(46);
    expect(meeting?.duration).toBe('00:00:18');
    expect(
      qmsumTranscript({ meeting_transcripts: [{ speaker: 'A', content: '{vocalsound}' }] }, 'Empty'),
    ).toBeNull();
  });
});
