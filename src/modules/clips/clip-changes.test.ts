import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { activityFor, type Team, team, unknownId } from '../transcripts/test-support.ts';

const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();
const clipNotFound = { success: false, error: 'Clip not found', code: 'NOT_FOUND' };

describe('clip changes', () => {
  const ctx = useTestApp();
  let t: Team;
  let outsider: SignedUpUser;
  let videoId: string;

  beforeAll(async () => {
    t = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    videoId = (
      await createVideoRow(ctx().database.db, { organizationId: t.organizationId, authorId: t.owner.id })
    ).id;
  });

  const call = requester(ctx);

  async function createClip(user: SignedUpUser, payload: Record<string, unknown> = {}) {
    const response = await call(user, 'POST', `/videos/${videoId}/clips`, {
      title: 'Key decision',
      description: 'Why we chose Postgres',
      startTime: 10,
      endTime: 20,
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  describe('PATCH /clips/{id}', () => {
    it('changes the given fields, records it, and reads the result back', async () => {
      const clip = await createClip(t.member);
      const response = await call(t.member, 'PATCH', `/clips/${clip.id}`, {
        title: 'Database choice',
        startTime: 15,
        endTime: 45.5,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toStrictEqual({
        ...clip,
        title: 'Database choice',
        startTime: 15,
        endTime: 45.5,
        duration: 30.5,
        updatedAt: expect.any(String),
      });
      expect((await call(t.viewer, 'GET', `/clips/${clip.id}`)).json()).toStrictEqual(body);
      const events = await activityFor(ctx(), 'clip.updated', clip.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ organizationId: t.organizationId, actorId: t.member.id });
    });

    it('leaves title and times unchanged on null and clears the description', async () => {
      const clip = await createClip(t.member);
      const response = await call(t.member, 'PATCH', `/clips/${clip.id}`, {
        title: null,
        description: null,
        startTime: null,
        endTime: null,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        title: 'Key decision',
        description: null,
        startTime: 10,
        endTime: 20,
        duration: 10,
      });
      const moved = await call(t.member, 'PATCH', `/clips/${clip.id}`, { endTime: 30, description: 'Again' });
      expect(moved.json()).toMatchObject({
        title: 'Key decision',
        description: 'Again',
        startTime: 10,
        endTime: 30,
      });
    });

    it('accepts a 1000-character description and rejects 1001 with details', async () => {
      const clip = await createClip(t.member);
      const ok = await call(t.member, 'PATCH', `/clips/${clip.id}`, { description: 'd'.repeat(1000) });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().description).toHaveLength(1000);
      const invalid = await call(t.member, 'PATCH', `/clips/${clip.id}`, {
        title: '',
        description: 'd'.repeat(1001),
        startTime: -5,
      });
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['body.description', 'body.startTime', 'body.title']);
      const empty = await call(t.member, 'PATCH', `/clips/${clip.id}`, {});
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body' }] });
    });

    it('checks the resulting range against the stored times and the duration', async () => {
      const clip = await createClip(t.member, { startTime: 10, endTime: 20 });
      const startPastEnd = await call(t.member, 'PATCH', `/clips/${clip.id}`, { startTime: 20 });
      expect(startPastEnd.statusCode).toBe(400);
      expect(startPastEnd.json().details).toEqual([
        { path: 'body.startTime', message: 'must be less than endTime (20)' },
      ]);
      const endBeforeStart = await call(t.member, 'PATCH', `/clips/${clip.id}`, { endTime: 5 });
      expect(endBeforeStart.json().details).toEqual([
        { path: 'body.endTime', message: 'must be greater than startTime (10)' },
      ]);
      const beyond = await call(t.member, 'PATCH', `/clips/${clip.id}`, { endTime: 601 });
      expect(beyond.statusCode).toBe(400);
      expect(beyond.json().details).toEqual([
        { path: 'body.endTime', message: "must be at most the video's duration (600 seconds)" },
      ]);
      const unchanged = await call(t.viewer, 'GET', `/clips/${clip.id}`);
      expect(unchanged.json()).toMatchObject({ startTime: 10, endTime: 20 });
      expect(await activityFor(ctx(), 'clip.updated', clip.id)).toHaveLength(0);
    });

    it('answers 401 without or with invalid credentials', async () => {
      const clip = await createClip(t.member);
      const anonymous = await call(null, 'PATCH', `/clips/${clip.id}`, { title: 'x' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      const invalid = await ctx().app.inject({
        method: 'PATCH',
        url: `/clips/${clip.id}`,
        headers: { authorization: 'Bearer not-a-session' },
        payload: { title: 'x' },
      });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toMatchObject({ success: false, code: 'INVALID_SESSION' });
    });

    it('lets an admin change any clip and answers 404 to other members, viewers and outsiders', async () => {
      const clip = await createClip(t.member);
      for (const caller of [t.otherMember, t.viewer, outsider]) {
        const response = await call(caller, 'PATCH', `/clips/${clip.id}`, { title: 'Hijacked' });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(clipNotFound);
      }
      const byAdmin = await call(t.admin, 'PATCH', `/clips/${clip.id}`, { title: 'Tidied' });
      expect(byAdmin.statusCode).toBe(200);
      expect(byAdmin.json().title).toBe('Tidied');
      expect(await activityFor(ctx(), 'clip.updated', clip.id)).toMatchObject([{ actorId: t.admin.id }]);
      const unknown = await call(t.admin, 'PATCH', `/clips/${unknownId}`, { title: 'x' });
      expect(unknown.json()).toEqual(clipNotFound);
    });
  });

  describe('DELETE /clips/{id}', () => {
    it('deletes its creator’s clip, records it, and the clip is gone', async () => {
      const clip = await createClip(t.member);
      const response = await call(t.member, 'DELETE', `/clips/${clip.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: clip.id, deleted: true });
      expect((await call(t.member, 'GET', `/clips/${clip.id}`)).statusCode).toBe(404);
      const list = await call(t.member, 'GET', `/videos/${videoId}/clips?limit=100`);
      expect(list.json().data.map((item: { id: string }) => item.id)).not.toContain(clip.id);
      const events = await activityFor(ctx(), 'clip.deleted', clip.id);
      expect(events).toMatchObject([{ organizationId: t.organizationId, actorId: t.member.id }]);
      expect((await call(t.member, 'DELETE', `/clips/${clip.id}`)).json()).toEqual(clipNotFound);
    });

    it('lets an admin delete any clip and answers 404 to other members, viewers and outsiders', async () => {
      const clip = await createClip(t.member);
      for (const caller of [t.otherMember, t.viewer, outsider]) {
        const response = await call(caller, 'DELETE', `/clips/${clip.id}`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(clipNotFound);
      }
      expect((await call(t.member, 'GET', `/clips/${clip.id}`)).statusCode).toBe(200);
      const byAdmin = await call(t.admin, 'DELETE', `/clips/${clip.id}`);
      expect(byAdmin.json()).toStrictEqual({ id: clip.id, deleted: true });
    });

    it('answers 401 without credentials', async () => {
      const clip = await createClip(t.member);
      const response = await call(null, 'DELETE', `/clips/${clip.id}`);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect((await call(t.member, 'GET', `/clips/${clip.id}`)).statusCode).toBe(200);
    });
  });
});
