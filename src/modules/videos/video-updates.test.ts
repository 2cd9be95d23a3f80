import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { transcriptSegments, videos } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import { errorPaths, eventsFor, expectVideo, libraryOf, makeVideo, postVideo } from './test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('videos: update and transcripts', () => {
  const ctx = useMailingTestApp();
  let crew: Team;
  beforeAll(async () => {
    crew = await team(ctx());
  });

  const read = (id: string, headers: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'GET', url: `/videos/${id}`, headers });
  const patch = (user: SignedUpUser, id: string, payload: Record<string, unknown>) =>
    ctx().app.inject({ method: 'PATCH', url: `/videos/${id}`, headers: user.headers, payload });

  describe('PATCH /videos/{id}', () => {
    it('lets the author change fields; null clears them; duration recomputes durationSeconds', async () => {
      const library = await libraryOf(ctx(), crew.organizationId);
      const video = await makeVideo(ctx(), crew.member, crew.organizationId, {
        description: 'Old',
        aiSummary: 'Summary',
        ...library,
      });
      const response = await patch(crew.member, video.id, {
        title: 'Renamed',
        duration: 'PT45M',
        description: null,
        aiSummary: null,
        channelId: null,
        collectionId: null,
        isPublic: true,
        recordedAt: '2026-01-05T09:30:00Z',
        organizationId: crew.outsider.organizationId,
      });
      expect(response.statusCode).toBe(200);
      const updated = expectVideo(response.json(), {
        ...video,
        title: 'Renamed',
        duration: 'PT45M',
        durationSeconds: 2700,
        description: null,
        aiSummary: null,
        channelId: null,
        collectionId: null,
        seriesId: library.seriesId,
        isPublic: true,
        recordedAt: '2026-01-05T09:30:00.000Z',
        organizationId: crew.organizationId,
        updatedAt: expect.any(String),
      });
      expect(new Date(updated.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(video.updatedAt).getTime(),
      );
      expect((await read(video.id, crew.viewer.headers)).json()).toEqual(updated);

      const events = await eventsFor(ctx(), video.id, 'video.updated');
      expect(events.map((event) => event.actorId)).toEqual([crew.member.id]);
      expect((events[0]?.metadata.fields as string[] | undefined)?.sort()).toEqual([
        'aiSummary',
        'channelId',
        'collectionId',
        'description',
        'duration',
        'isPublic',
        'recordedAt',
        'title',
      ]);
    });

    it('lets an admin change any video; other members and viewers get 403, outsiders 404', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const byAdmin = await patch(crew.admin, video.id, { title: 'By admin' });
      expect(byAdmin.statusCode).toBe(200);
      expectVideo(byAdmin.json(), { title: 'By admin' });
      const ownVideo = await makeVideo(ctx(), crew.admin, crew.organizationId);
      for (const user of [crew.viewer]) {
        const response = await patch(user, video.id, { title: 'No' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', 'Only the author or an admin can change this video'),
        );
      }
      const otherMember = await patch(crew.member, ownVideo.id, { title: 'No' });
      expect(otherMember.statusCode).toBe(403);
      const outsider = await patch(crew.outsider, video.id, { title: 'No' });
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
      expect((await read(video.id, crew.owner.headers)).json().title).toBe('By admin');
    });

    it('moves a video to the end of another collection', async () => {
      const { collectionId } = await libraryOf(ctx(), crew.organizationId);
      await makeVideo(ctx(), crew.member, crew.organizationId, { collectionId });
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const response = await patch(crew.member, video.id, { collectionId });
      expectVideo(response.json(), { collectionId });
      const [row] = await ctx()
        .database.db.select({ position: videos.collectionPosition })
        .from(videos)
        .where(eq(videos.id, video.id));
      expect(row?.position).toBe(1);
    });

    it('validates the body and references', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const invalid = await patch(crew.member, video.id, {
        title: '',
        duration: '',
        isPublic: 'no',
        seriesId: 'x',
      });
      expect(invalid.statusCode).toBe(400);
      expect(errorPaths(invalid.json())).toEqual([
        'body.duration',
        'body.isPublic',
        'body.seriesId',
        'body.title',
      ]);
      const theirs = await libraryOf(ctx(), crew.outsider.organizationId);
      const foreign = await patch(crew.member, video.id, { seriesId: theirs.seriesId });
      expect(foreign.statusCode).toBe(400);
      expect(errorPaths(foreign.json())).toEqual(['body.seriesId']);
      expect((await read(video.id, crew.member.headers)).json()).toEqual(video);
    });

    it('records nothing when nothing changes', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const response = await patch(crew.member, video.id, { title: video.title, duration: video.duration });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(video);
      expect(await eventsFor(ctx(), video.id, 'video.updated')).toEqual([]);
    });

    it('answers 401 and 404 for missing credentials and unknown videos', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const none = await ctx().app.inject({ method: 'PATCH', url: `/videos/${video.id}`, payload: {} });
      expect(none.statusCode).toBe(401);
      const unknown = await patch(crew.owner, unknownId, { title: 'x' });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe('transcripts', () => {
    const segmentsOf = (videoId: string) =>
      ctx()
        .database.db.select({ speaker: transcriptSegments.speakerLabel, text: transcriptSegments.text })
        .from(transcriptSegments)
        .where(eq(transcriptSegments.videoId, videoId))
        .orderBy(transcriptSegments.index);

    it('parses the transcript of a new or changed video into segments; null removes them', async () => {
      const transcript = 'Alice: Shall we start?\nBob: Yes, the agenda first.';
      const video = await makeVideo(ctx(), crew.member, crew.organizationId, { transcript });
      expectVideo(video, { transcript });
      expect(await segmentsOf(video.id)).toEqual([
        { speaker: 'Alice', text: 'Shall we start?' },
        { speaker: 'Bob', text: 'Yes, the agenda first.' },
      ]);
      expect((await read(video.id, crew.member.headers)).json()).toEqual(video);

      const vtt = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Carol>Next item.';
      const changed = await patch(crew.member, video.id, { transcript: vtt });
      expectVideo(changed.json(), { transcript: vtt });
      expect(await segmentsOf(video.id)).toEqual([{ speaker: 'Carol', text: 'Next item.' }]);
      expect((await read(video.id, crew.member.headers)).json()).toEqual(changed.json());

      const cleared = await patch(crew.member, video.id, { transcript: null });
      expectVideo(cleared.json(), { transcript: null });
      expect(await segmentsOf(video.id)).toEqual([]);
    });

    it('refuses a transcript that cannot be parsed, creating nothing', async () => {
      const body = await postVideo(
        ctx(),
        crew.member,
        {
          title: 'Broken',
          duration: '10',
          organizationId: crew.organizationId,
          transcript: 'WEBVTT\n\n00:00:05.000 --> 00:00:01.000\nBackwards',
        },
        400,
      );
      expect(body).toMatchObject(errorBody('INVALID_TRANSCRIPT'));
      expect(errorPaths(body)).toEqual(['body.transcript']);
      const titles = await ctx()
        .database.db.select({ title: videos.title })
        .from(videos)
        .where(eq(videos.title, 'Broken'));
      expect(titles).toEqual([]);
    });
  });
});
