import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { activityFor, insertVideo, inTeam, team, unknownId } from './test-support.ts';

const uuidPattern = expect.stringMatching(/^[0-9a-f-]{36}$/);

describe('speakers', () => {
  const ctx = useTestApp();

  const putText = async (videoId: string, user: SignedUpUser, text: string) => {
    const response = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: user.headers,
      payload: { text },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  const listSpeakers = (user: SignedUpUser, query = '') =>
    ctx().app.inject({ method: 'GET', url: `/speakers${query}`, headers: user.headers });

  const patchSpeaker = (user: SignedUpUser, speakerId: string, payload: Record<string, unknown>) =>
    ctx().app.inject({ method: 'PATCH', url: `/speakers/${speakerId}`, headers: user.headers, payload });

  const linkSpeakers = (user: SignedUpUser, videoId: string, payload: Record<string, unknown>) =>
    ctx().app.inject({ method: 'PATCH', url: `/videos/${videoId}/speakers`, headers: user.headers, payload });

  /** A team whose organization has two transcribed videos and one deleted one. */
  async function arrange() {
    const crew = await team(ctx());
    const first = await insertVideo(ctx(), inTeam(crew, crew.member));
    const second = await insertVideo(ctx(), inTeam(crew, crew.member), { title: 'Weekly product sync' });
    const gone = await insertVideo(ctx(), inTeam(crew, crew.member), { title: 'Old' });
    await putText(
      first.id,
      crew.member,
      'Aiko Tanaka: Morning.\nBen Okafor: Hi.\nAiko Tanaka: Let us start.',
    );
    await putText(second.id, crew.member, 'aiko tanaka : Quick one today.\nCarla Reyes: Sure.');
    await putText(gone.id, crew.member, 'Aiko Tanaka: This meeting was deleted.\nDev Null: Bye.');
    await ctx().database.pool.query('UPDATE videos SET is_deleted = true WHERE id = $1', [gone.id]);
    const byName = async () => {
      const { data } = (await listSpeakers(crew.viewer, `?organizationId=${crew.organizationId}`)).json();
      return Object.fromEntries(data.map((speaker: { name: string; id: string }) => [speaker.name, speaker]));
    };
    return { crew, first, second, byName };
  }

  describe('GET /speakers', () => {
    it('creates each speaker once per organization across videos, with counts of videos not deleted', async () => {
      const { crew } = await arrange();
      const response = await listSpeakers(crew.viewer, `?organizationId=${crew.organizationId}`);
      expect(response.statusCode).toBe(200);
      const speaker = (name: string, videoCount: number) => ({
        id: uuidPattern,
        organizationId: crew.organizationId,
        name,
        userId: null,
        videoCount,
        createdAt: isoDate,
      });
      expect(response.json()).toEqual({
        data: [
          speaker('Aiko Tanaka', 2),
          speaker('Ben Okafor', 1),
          speaker('Carla Reyes', 1),
          speaker('Dev Null', 0),
        ],
        pagination: { page: 1, limit: 20, total: 4, totalPages: 1 },
      });

      const page = await listSpeakers(crew.viewer, `?organizationId=${crew.organizationId}&limit=2&page=2`);
      expect(page.json().data.map((entry: { name: string }) => entry.name)).toEqual([
        'Carla Reyes',
        'Dev Null',
      ]);
      expect(page.json().pagination).toEqual({ page: 2, limit: 2, total: 4, totalPages: 2 });
    });

    it('keeps organizations apart: the same name elsewhere is another speaker, and lists cover only mine', async () => {
      const { crew, byName } = await arrange();
      const stranger = await signUpUser(ctx().app);
      const theirs = await insertVideo(ctx(), stranger);
      await putText(theirs.id, stranger, 'Aiko Tanaka: Another company, another Aiko.');
      const { data } = (await listSpeakers(stranger)).json();
      expect(data).toEqual([
        expect.objectContaining({ name: 'Aiko Tanaka', organizationId: stranger.organizationId }),
      ]);
      expect(data[0].id).not.toBe((await byName())['Aiko Tanaka'].id);

      const mine = (await listSpeakers(crew.viewer)).json();
      expect(mine.pagination.total).toBe(4);
      const outsider = await listSpeakers(stranger, `?organizationId=${crew.organizationId}`);
      expect(outsider.statusCode).toBe(403);
      expect(outsider.json()).toEqual({
        success: false,
        error: 'You are not a member of this organization',
        code: 'NOT_A_MEMBER',
      });
    });

    it('validates the query and needs credentials', async () => {
      const { crew } = await arrange();
      const bad = await listSpeakers(crew.viewer, '?organizationId=nope&limit=0');
      expect(bad.statusCode).toBe(400);
      expect(
        bad
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['querystring.limit', 'querystring.organizationId']);
      for (const headers of [{}, { authorization: 'Bearer not-a-real-token' }]) {
        const response = await ctx().app.inject({ method: 'GET', url: '/speakers', headers });
        expect(response.statusCode).toBe(401);
      }
    });
  });

  describe('PATCH /speakers/{id}', () => {
    it('lets an admin rename a speaker and link it to a member; subtitles follow the new name', async () => {
      const { crew, first, byName } = await arrange();
      const aiko = (await byName())['Aiko Tanaka'];
      const response = await patchSpeaker(crew.admin, aiko.id, {
        name: 'Aiko Tanaka-Sato',
        userId: crew.member.id,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ...aiko, name: 'Aiko Tanaka-Sato', userId: crew.member.id });
      const transcript = (
        await ctx().app.inject({
          method: 'GET',
          url: `/videos/${first.id}/transcript`,
          headers: crew.viewer.headers,
        })
      ).json();
      expect(transcript.segments[0]).toMatchObject({ speaker: 'Aiko Tanaka-Sato', speakerId: aiko.id });
      expect(await activityFor(ctx(), 'speaker.updated', aiko.id)).toEqual([
        expect.objectContaining({
          actorId: crew.admin.id,
          targetType: 'speaker',
          organizationId: crew.organizationId,
        }),
      ]);

      const unlinked = await patchSpeaker(crew.owner, aiko.id, { userId: null });
      expect(unlinked.json()).toMatchObject({ name: 'Aiko Tanaka-Sato', userId: null });
    });

    it('refuses members and viewers (403), other organizations and unknown ids (404)', async () => {
      const { crew, byName } = await arrange();
      const ben = (await byName())['Ben Okafor'];
      for (const user of [crew.member, crew.viewer]) {
        const response = await patchSpeaker(user, ben.id, { name: 'Benjamin' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ success: false, code: 'INSUFFICIENT_ROLE' });
      }
      const stranger = await signUpUser(ctx().app);
      for (const id of [ben.id, unknownId, 'not-a-uuid']) {
        const response = await patchSpeaker(stranger, id, { name: 'Benjamin' });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
      }
      expect((await byName())['Ben Okafor']).toEqual(ben);
    });

    it('validates: a member to link, a name not taken, well-formed fields', async () => {
      const { crew, byName } = await arrange();
      const { 'Ben Okafor': ben } = await byName();
      const stranger = await signUpUser(ctx().app);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ userId: stranger.id }, 'VALIDATION_ERROR', 'body.userId'],
        [{ name: '  carla REYES ' }, 'SPEAKER_NAME_TAKEN', 'body.name'],
        [{ name: '' }, 'VALIDATION_ERROR', 'body.name'],
        [{ userId: 'nope' }, 'VALIDATION_ERROR', 'body.userId'],
      ];
      for (const [payload, code, path] of cases) {
        const response = await patchSpeaker(crew.admin, ben.id, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject({
          success: false,
          code,
          details: [expect.objectContaining({ path })],
        });
      }
    });
  });

  describe('PATCH /videos/{id}/speakers', () => {
    it("links the video's speakers to members and answers the video's speakers", async () => {
      const { crew, first, byName } = await arrange();
      const { 'Aiko Tanaka': aiko, 'Ben Okafor': ben } = await byName();
      const response = await linkSpeakers(crew.member, first.id, {
        speakers: [
          { speakerId: aiko.id, userId: crew.otherMember.id },
          { speakerId: ben.id, userId: crew.viewer.id },
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        videoId: first.id,
        speakers: [
          { ...aiko, userId: crew.otherMember.id },
          { ...ben, userId: crew.viewer.id },
        ],
      });
      expect((await byName())['Aiko Tanaka'].userId).toBe(crew.otherMember.id);
      expect(await activityFor(ctx(), 'video.speakers_linked', first.id)).toHaveLength(1);

      const unlink = await linkSpeakers(crew.admin, first.id, {
        speakers: [{ speakerId: ben.id, userId: null }],
      });
      expect(unlink.statusCode).toBe(200);
      expect((await byName())['Ben Okafor'].userId).toBeNull();
    });

    it('refuses speakers not in the video and users not in the organization, naming each', async () => {
      const { crew, first, byName } = await arrange();
      const { 'Aiko Tanaka': aiko, 'Carla Reyes': carla } = await byName();
      const stranger = await signUpUser(ctx().app);
      const notInVideo = await linkSpeakers(crew.member, first.id, {
        speakers: [
          { speakerId: aiko.id, userId: null },
          { speakerId: carla.id, userId: null },
        ],
      });
      expect(notInVideo.statusCode).toBe(400);
      expect(notInVideo.json()).toEqual({
        success: false,
        error: 'Invalid request',
        code: 'VALIDATION_ERROR',
        details: [{ path: 'body.speakers.1.speakerId', message: 'is not a speaker of this video' }],
      });
      const outsider = await linkSpeakers(crew.member, first.id, {
        speakers: [{ speakerId: aiko.id, userId: stranger.id }],
      });
      expect(outsider.json().details).toEqual([
        { path: 'body.speakers.0.userId', message: 'must be a member of the organization' },
      ]);
      const empty = await linkSpeakers(crew.member, first.id, { speakers: [] });
      expect(empty.json().details).toEqual([{ path: 'body.speakers', message: expect.any(String) }]);
      expect((await byName())['Aiko Tanaka'].userId).toBeNull();
    });

    it('needs edit access: other members and viewers 403, outsiders 404', async () => {
      const { crew, first, byName } = await arrange();
      const { 'Aiko Tanaka': aiko } = await byName();
      const payload = { speakers: [{ speakerId: aiko.id, userId: crew.viewer.id }] };
      for (const user of [crew.otherMember, crew.viewer]) {
        const response = await linkSpeakers(user, first.id, payload);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ code: 'INSUFFICIENT_ROLE' });
      }
      const stranger = await signUpUser(ctx().app);
      expect((await linkSpeakers(stranger, first.id, payload)).statusCode).toBe(404);
      expect((await linkSpeakers(crew.member, unknownId, payload)).statusCode).toBe(404);
      expect((await byName())['Aiko Tanaka'].userId).toBeNull();
    });
  });
});
