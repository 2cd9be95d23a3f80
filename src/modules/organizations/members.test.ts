import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { memberships } from '../../db/schema/index.ts';
import { addMember, errorBody, team, useMailingTestApp } from './test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('organization members', () => {
  const ctx = useMailingTestApp();

  const list = (user: SignedUpUser, organizationId: string, query = '') =>
    ctx().app.inject({
      method: 'GET',
      url: `/organizations/${organizationId}/members${query}`,
      headers: user.headers,
    });

  const setRole = (user: SignedUpUser, organizationId: string, userId: string, payload: unknown) =>
    ctx().app.inject({
      method: 'PATCH',
      url: `/organizations/${organizationId}/members/${userId}`,
      headers: user.headers,
      payload: payload as Record<string, unknown>,
    });

  const remove = (user: SignedUpUser, organizationId: string, userId: string) =>
    ctx().app.inject({
      method: 'DELETE',
      url: `/organizations/${organizationId}/members/${userId}`,
      headers: user.headers,
    });

  async function rolesIn(organizationId: string, reader: SignedUpUser) {
    const response = await list(reader, organizationId, '?limit=100');
    expect(response.statusCode).toBe(200);
    return Object.fromEntries(
      response.json().data.map((member: { userId: string; role: string }) => [member.userId, member.role]),
    );
  }

  describe('GET /organizations/{id}/members', () => {
    it('lists the members to any member, in the order they joined, paginated', async () => {
      const crew = await team(ctx());
      for (const reader of [crew.viewer, crew.member, crew.admin, crew.owner]) {
        const response = await list(reader, crew.organizationId, '?limit=3');
        expect(response.statusCode).toBe(200);
        expect(response.json().pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
        expect(response.json().data.map((member: { userId: string }) => member.userId)).toEqual([
          crew.owner.id,
          crew.admin.id,
          crew.member.id,
        ]);
      }
      const second = await list(crew.viewer, crew.organizationId, '?limit=3&page=2');
      expect(second.json().data).toEqual([
        {
          userId: crew.viewer.id,
          name: 'Vic Viewer',
          email: crew.viewer.email,
          avatarUrl: null,
          role: 'viewer',
          joinedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        },
      ]);
    });

    it('refuses pagination out of range', async () => {
      const owner = await signUpUser(ctx().app);
      const response = await list(owner, owner.organizationId, '?limit=0&page=x');
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['querystring.limit', 'querystring.page']);
    });
  });

  describe('PATCH /organizations/{id}/members/{userId}', () => {
    it('lets an admin set member, viewer and admin on non-owners', async () => {
      const crew = await team(ctx());
      const response = await setRole(crew.admin, crew.organizationId, crew.member.id, { role: 'viewer' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        userId: crew.member.id,
        name: 'Mia Member',
        email: crew.member.email,
        avatarUrl: null,
        role: 'viewer',
        joinedAt: expect.any(String),
      });
      expect(
        (await setRole(crew.admin, crew.organizationId, crew.viewer.id, { role: 'admin' })).statusCode,
      ).toBe(200);
      expect(
        (await setRole(crew.admin, crew.organizationId, crew.viewer.id, { role: 'member' })).statusCode,
      ).toBe(200);
      expect(await rolesIn(crew.organizationId, crew.owner)).toEqual({
        [crew.owner.id]: 'owner',
        [crew.admin.id]: 'admin',
        [crew.member.id]: 'viewer',
        [crew.viewer.id]: 'member',
      });
    });

    it('keeps the owner role for owners to grant and take away', async () => {
      const crew = await team(ctx());
      const grant = await setRole(crew.admin, crew.organizationId, crew.member.id, { role: 'owner' });
      expect(grant.statusCode).toBe(403);
      expect(grant.json()).toEqual(errorBody('INSUFFICIENT_ROLE', 'This requires the owner role or higher'));
      const demote = await setRole(crew.admin, crew.organizationId, crew.owner.id, { role: 'viewer' });
      expect(demote.statusCode).toBe(403);

      const promoted = await setRole(crew.owner, crew.organizationId, crew.admin.id, { role: 'owner' });
      expect(promoted.statusCode).toBe(200);
      expect(promoted.json().role).toBe('owner');
      // Now an owner, the former admin can demote the original owner.
      const demoted = await setRole(crew.admin, crew.organizationId, crew.owner.id, { role: 'admin' });
      expect(demoted.statusCode).toBe(200);
      expect(await rolesIn(crew.organizationId, crew.viewer)).toMatchObject({
        [crew.owner.id]: 'admin',
        [crew.admin.id]: 'owner',
      });
    });

    it('refuses members and viewers', async () => {
      const crew = await team(ctx());
      for (const caller of [crew.member, crew.viewer]) {
        const response = await setRole(caller, crew.organizationId, crew.viewer.id, { role: 'admin' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', 'This requires the admin role or higher'),
        );
      }
      expect((await rolesIn(crew.organizationId, crew.owner))[crew.viewer.id]).toBe('viewer');
    });

    it('never demotes the last owner', async () => {
      const crew = await team(ctx());
      const response = await setRole(crew.owner, crew.organizationId, crew.owner.id, { role: 'admin' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(errorBody('LAST_OWNER'));
      expect((await rolesIn(crew.organizationId, crew.owner))[crew.owner.id]).toBe('owner');
      // Owner to owner changes nothing and is allowed.
      expect(
        (await setRole(crew.owner, crew.organizationId, crew.owner.id, { role: 'owner' })).statusCode,
      ).toBe(200);
    });

    it('answers 404 for someone who is not a member, or a malformed id', async () => {
      const crew = await team(ctx());
      for (const userId of [crew.outsider.id, unknownId, 'nope']) {
        const response = await setRole(crew.owner, crew.organizationId, userId, { role: 'viewer' });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
      const notMember = await setRole(crew.owner, crew.organizationId, crew.outsider.id, { role: 'viewer' });
      expect(notMember.json().error).toBe('Member not found');
    });

    it('validates the role', async () => {
      const crew = await team(ctx());
      for (const payload of [{ role: 'superuser' }, {}, { role: null }]) {
        const response = await setRole(crew.owner, crew.organizationId, crew.member.id, payload);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
        expect(response.json().details).toEqual([{ path: 'body.role', message: expect.any(String) }]);
      }
    });
  });

  describe('DELETE /organizations/{id}/members/{userId}', () => {
    it('lets an admin remove members, viewers and admins, who then lose access', async () => {
      const crew = await team(ctx());
      const otherAdmin = await addMember(ctx(), crew.organizationId, crew.owner, 'admin');
      for (const target of [crew.member, crew.viewer, otherAdmin]) {
        const response = await remove(crew.admin, crew.organizationId, target.id);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ userId: target.id, removed: true });
        const read = await ctx().app.inject({
          method: 'GET',
          url: `/organizations/${crew.organizationId}`,
          headers: target.headers,
        });
        expect(read.statusCode).toBe(404);
      }
      expect(await rolesIn(crew.organizationId, crew.admin)).toEqual({
        [crew.owner.id]: 'owner',
        [crew.admin.id]: 'admin',
      });
    });

    it('refuses admins removing owners, and members or viewers removing anyone', async () => {
      const crew = await team(ctx());
      const cases: Array<[SignedUpUser, SignedUpUser, string]> = [
        [crew.admin, crew.owner, 'owner'],
        [crew.member, crew.viewer, 'admin'],
        [crew.viewer, crew.member, 'admin'],
      ];
      for (const [caller, target, needed] of cases) {
        const response = await remove(caller, crew.organizationId, target.id);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', `This requires the ${needed} role or higher`),
        );
      }
      expect(Object.keys(await rolesIn(crew.organizationId, crew.owner))).toHaveLength(4);
    });

    it('lets anyone leave, and moves their default organization', async () => {
      const crew = await team(ctx());
      for (const leaver of [crew.viewer, crew.member, crew.admin]) {
        const response = await remove(leaver, crew.organizationId, leaver.id);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ userId: leaver.id, removed: true });
      }
      expect(await rolesIn(crew.organizationId, crew.owner)).toEqual({ [crew.owner.id]: 'owner' });

      // The owner makes a second organization, then leaves the personal one as a second owner joins.
      const second = await ctx().app.inject({
        method: 'POST',
        url: '/organizations',
        headers: crew.owner.headers,
        payload: { name: 'Second' },
      });
      const coOwner = await addMember(ctx(), crew.organizationId, crew.owner, 'owner');
      expect((await remove(crew.owner, crew.organizationId, crew.owner.id)).statusCode).toBe(200);
      const session = await ctx().app.inject({
        method: 'GET',
        url: '/auth/session',
        headers: crew.owner.headers,
      });
      expect(session.json().data.user.defaultOrganizationId).toBe(second.json().id);
      expect(await rolesIn(crew.organizationId, coOwner)).toEqual({ [coOwner.id]: 'owner' });
    });

    it('lets an owner remove anyone but the last owner', async () => {
      const crew = await team(ctx());
      const coOwner = await addMember(ctx(), crew.organizationId, crew.owner, 'owner');
      expect((await remove(crew.owner, crew.organizationId, crew.admin.id)).statusCode).toBe(200);
      expect((await remove(crew.owner, crew.organizationId, coOwner.id)).statusCode).toBe(200);

      const last = await remove(crew.owner, crew.organizationId, crew.owner.id);
      expect(last.statusCode).toBe(400);
      expect(last.json()).toEqual(
        errorBody('LAST_OWNER', 'The last owner cannot leave or be demoted; make another member owner first'),
      );
      expect(await rolesIn(crew.organizationId, crew.owner)).toEqual({
        [crew.owner.id]: 'owner',
        [crew.member.id]: 'member',
        [crew.viewer.id]: 'viewer',
      });
    });

    it('keeps an owner when the last two leave at the same time', async () => {
      const crew = await team(ctx());
      const coOwner = await addMember(ctx(), crew.organizationId, crew.owner, 'owner');
      // Hold the owners' rows, as a third owner change in flight would, so that both requests
      // are inside their transactions when it ends.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let lockTaken = () => {};
      const locked = new Promise<void>((resolve) => {
        lockTaken = resolve;
      });
      const blocker = ctx().database.db.transaction(async (tx) => {
        await tx
          .select()
          .from(memberships)
          .where(and(eq(memberships.organizationId, crew.organizationId), eq(memberships.role, 'owner')))
          .for('update');
        lockTaken();
        await held;
      });
      await locked;
      const requests = Promise.all([
        remove(crew.owner, crew.organizationId, crew.owner.id),
        remove(coOwner, crew.organizationId, coOwner.id),
      ]);
      await sleep(500);
      release();
      await blocker;
      const responses = await requests;
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400]);
      expect(responses.find((response) => response.statusCode === 400)?.json().code).toBe('LAST_OWNER');
      const roles = await rolesIn(crew.organizationId, crew.admin);
      expect(Object.values(roles).filter((role) => role === 'owner')).toHaveLength(1);
    });

    it('answers 404 for someone who is not a member', async () => {
      const crew = await team(ctx());
      for (const userId of [crew.outsider.id, unknownId]) {
        const response = await remove(crew.owner, crew.organizationId, userId);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Member not found'));
      }
    });
  });
});
