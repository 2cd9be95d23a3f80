import { describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { firstLink } from '../../../test/helpers/smtp.ts';
import { memberships } from '../../db/schema/index.ts';
import { errorBody, invite, team, tokenOf, useMailingTestApp } from './test-support.ts';

const DAY = 24 * 3600 * 1000;
const password = 'correct horse battery staple';

describe('invitations', () => {
  const ctx = useMailingTestApp({ APP_URL: 'https://hub.example.com' });

  const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2)}@example.com`;

  const post = (user: SignedUpUser, organizationId: string, payload: Record<string, unknown>) =>
    ctx().app.inject({
      method: 'POST',
      url: `/organizations/${organizationId}/invitations`,
      headers: user.headers,
      payload,
    });

  const accept = (user: Pick<SignedUpUser, 'headers'>, token: string) =>
    ctx().app.inject({ method: 'POST', url: `/invitations/${token}/accept`, headers: user.headers });

  const listInvitations = (user: SignedUpUser, organizationId: string, query = '') =>
    ctx().app.inject({
      method: 'GET',
      url: `/organizations/${organizationId}/invitations${query}`,
      headers: user.headers,
    });

  async function roleOf(userId: string, organizationId: string, reader: SignedUpUser) {
    const response = await ctx().app.inject({
      method: 'GET',
      url: `/organizations/${organizationId}/members?limit=100`,
      headers: reader.headers,
    });
    return response.json().data.find((member: { userId: string }) => member.userId === userId)?.role as
      | string
      | undefined;
  }

  const signUp = (payload: Record<string, unknown>) =>
    ctx().app.inject({ method: 'POST', url: '/auth/sign-up', payload: { password, ...payload } });

  describe('the mailed invitation', () => {
    it('carries a link whose token an existing user accepts, joining with the invited role', async () => {
      const owner = await signUpUser(ctx().app, { name: 'Grace Hopper' });
      const rename = await ctx().app.inject({
        method: 'PATCH',
        url: `/organizations/${owner.organizationId}`,
        headers: owner.headers,
        payload: { name: 'Compiler Club' },
      });
      expect(rename.statusCode).toBe(200);
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('ada') });

      const response = await post(owner, owner.organizationId, {
        email: ` ${invitee.email.toUpperCase()} `,
        role: 'member',
      });
      expect(response.statusCode).toBe(201);
      const invitation = response.json();
      expect(invitation).toEqual({
        id: expect.any(String),
        organizationId: owner.organizationId,
        email: invitee.email,
        role: 'member',
        status: 'pending',
        expiresAt: isoDate,
        createdAt: isoDate,
        invitedBy: owner.id,
      });
      const lifetime = Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt);
      expect(Math.abs(lifetime - 7 * DAY)).toBeLessThan(60_000);

      const mail = await ctx().smtp.waitForMail(invitee.email);
      expect(mail.subject).toBe('Grace Hopper invited you to Compiler Club on Knowledge Hub');
      expect(mail.text).toContain(
        'Grace Hopper invited you to join Compiler Club on Knowledge Hub as member.',
      );
      const link = firstLink(mail);
      const match = /^https:\/\/hub\.example\.com\/invitations\/([\w-]{43})$/.exec(link);
      expect(match).not.toBeNull();
      const token = match?.[1] as string;
      expect(mail.text).toContain(`POST /invitations/${token}/accept`);

      const accepted = await accept(invitee, token);
      expect(accepted.statusCode).toBe(201);
      expect(accepted.json()).toEqual({ organizationId: owner.organizationId, role: 'member' });
      expect(await roleOf(invitee.id, owner.organizationId, owner)).toBe('member');
      const mine = await ctx().app.inject({
        method: 'GET',
        url: '/organizations',
        headers: invitee.headers,
      });
      expect(mine.json().data.map((org: { id: string; role: string }) => [org.id, org.role])).toEqual([
        [invitee.organizationId, 'owner'],
        [owner.organizationId, 'member'],
      ]);
      const listed = (await listInvitations(owner, owner.organizationId)).json().data;
      expect(listed).toEqual([{ ...invitation, status: 'accepted' }]);

      const again = await accept(invitee, token);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual(errorBody('INVITATION_NOT_FOUND'));
    });

    it('lets a new user sign up with the token, joining that organization instead of getting a personal one', async () => {
      const owner = await signUpUser(ctx().app);
      const email = uniqueEmail('newcomer');
      await post(owner, owner.organizationId, { email, role: 'viewer' });
      const token = tokenOf(await ctx().smtp.waitForMail(email));

      const response = await signUp({ email, name: 'Newcomer', invitationToken: token });
      expect(response.statusCode).toBe(201);
      const { user, session } = response.json().data;
      expect(user.defaultOrganizationId).toBe(owner.organizationId);
      const headers = { authorization: `Bearer ${session.sessionId}` };
      const mine = await ctx().app.inject({ method: 'GET', url: '/organizations', headers });
      expect(mine.json().pagination.total).toBe(1);
      expect(mine.json().data[0]).toMatchObject({ id: owner.organizationId, role: 'viewer' });
      const listed = (await listInvitations(owner, owner.organizationId)).json().data;
      expect(listed.map((row: { email: string; status: string }) => [row.email, row.status])).toEqual([
        [email, 'accepted'],
      ]);
      expect((await accept({ headers }, token)).statusCode).toBe(404);
    });
  });

  describe('POST /auth/sign-up with an invitation token', () => {
    it('refuses an unknown token, or one sent to another address, and creates no user', async () => {
      const owner = await signUpUser(ctx().app);
      const { token } = await invite(ctx(), owner.organizationId, owner, uniqueEmail('meant'), 'member');
      const email = uniqueEmail('intruder');
      for (const invitationToken of ['made-up-token', token]) {
        const response = await signUp({ email, name: 'Intruder', invitationToken });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(errorBody('INVALID_TOKEN', 'Invalid token'));
      }
      const signIn = await ctx().app.inject({
        method: 'POST',
        url: '/auth/sign-in',
        payload: { email, password },
      });
      expect(signIn.statusCode).toBe(401);
      const pending = (await listInvitations(owner, owner.organizationId)).json().data;
      expect(pending.map((row: { status: string }) => row.status)).toEqual(['pending']);
    });

    it('validates the token field', async () => {
      const response = await signUp({ email: uniqueEmail('x'), name: 'X', invitationToken: '' });
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toEqual([
        { path: 'body.invitationToken', message: expect.any(String) },
      ]);
    });
  });

  describe('expiry', () => {
    it('expires after 7 days: listed as expired, and neither accepted nor used to sign up', async () => {
      const owner = await signUpUser(ctx().app);
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('late') });
      const newcomer = uniqueEmail('later');
      const { token } = await invite(ctx(), owner.organizationId, owner, invitee.email, 'member');
      const { token: newcomerToken } = await invite(ctx(), owner.organizationId, owner, newcomer, 'member');
      ctx().clock.advance(8 * DAY);
      try {
        const statuses = (await listInvitations(await signIn(owner), owner.organizationId)).json().data;
        expect(statuses.map((row: { status: string }) => row.status)).toEqual(['expired', 'expired']);

        const response = await accept(await signIn(invitee), token);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(
          errorBody('INVITATION_NOT_FOUND', 'Invitation not found, already used or expired'),
        );
        const signUpLate = await signUp({ email: newcomer, name: 'Late', invitationToken: newcomerToken });
        expect(signUpLate.statusCode).toBe(400);
        expect(signUpLate.json()).toEqual(errorBody('INVALID_TOKEN', 'Invalid token'));
      } finally {
        ctx().clock.reset();
      }
      expect(await roleOf(invitee.id, owner.organizationId, owner)).toBeUndefined();
    });

    /** Sessions last 7 days too: a fresh one, at the moved clock. */
    async function signIn(user: SignedUpUser): Promise<SignedUpUser> {
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/auth/sign-in',
        payload: { email: user.email, password: user.password },
      });
      expect(response.statusCode).toBe(200);
      return { ...user, headers: { authorization: `Bearer ${response.json().data.session.sessionId}` } };
    }
  });

  describe('POST /invitations/{token}/accept', () => {
    it('refuses a user whose email differs, leaving the invitation usable', async () => {
      const owner = await signUpUser(ctx().app);
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('right') });
      const other = await signUpUser(ctx().app, { email: uniqueEmail('wrong') });
      const { token } = await invite(ctx(), owner.organizationId, owner, invitee.email, 'admin');

      const refused = await accept(other, token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(
        errorBody('INVITATION_EMAIL_MISMATCH', 'This invitation was sent to another email address'),
      );
      expect(await roleOf(other.id, owner.organizationId, owner)).toBeUndefined();
      expect((await accept(invitee, token)).json()).toEqual({
        organizationId: owner.organizationId,
        role: 'admin',
      });
    });

    it('answers 404 for an unknown token', async () => {
      const user = await signUpUser(ctx().app);
      for (const token of ['unknown-token', 'A'.repeat(43)]) {
        const response = await accept(user, token);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('INVITATION_NOT_FOUND'));
      }
    });

    it('keeps a higher role the user already holds', async () => {
      const owner = await signUpUser(ctx().app);
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('keeper') });
      const { token } = await invite(ctx(), owner.organizationId, owner, invitee.email, 'viewer');
      // Made admin by another path (a concurrent invitation) after this one was sent.
      await ctx()
        .database.db.insert(memberships)
        .values({ organizationId: owner.organizationId, userId: invitee.id, role: 'admin' });
      const response = await accept(invitee, token);
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ organizationId: owner.organizationId, role: 'admin' });
      expect(await roleOf(invitee.id, owner.organizationId, owner)).toBe('admin');
    });
  });

  describe('POST /organizations/{id}/invitations', () => {
    it('is for admins and owners; only owners invite owners', async () => {
      const crew = await team(ctx());
      const cases: Array<[SignedUpUser, string, number]> = [
        [crew.viewer, 'viewer', 403],
        [crew.member, 'viewer', 403],
        [crew.admin, 'owner', 403],
        [crew.admin, 'admin', 201],
        [crew.owner, 'owner', 201],
      ];
      for (const [caller, role, status] of cases) {
        const response = await post(caller, crew.organizationId, { email: uniqueEmail(role), role });
        expect(response.statusCode, `${role} by ${caller.name}`).toBe(status);
        if (status === 403) expect(response.json()).toMatchObject(errorBody('INSUFFICIENT_ROLE'));
        else expect(response.json()).toMatchObject({ role, status: 'pending', invitedBy: caller.id });
      }
      const listed = (await listInvitations(crew.owner, crew.organizationId)).json().data;
      const pending = listed.filter((row: { status: string }) => row.status === 'pending');
      expect(pending.map((row: { role: string; invitedBy: string }) => [row.role, row.invitedBy])).toEqual([
        ['owner', crew.owner.id],
        ['admin', crew.admin.id],
      ]);
    });

    it('refuses to invite a member', async () => {
      const crew = await team(ctx());
      const response = await post(crew.admin, crew.organizationId, {
        email: crew.viewer.email,
        role: 'admin',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        errorBody('ALREADY_MEMBER', 'This person is already a member of the organization'),
      );
    });

    it('replaces a pending invitation to the same address', async () => {
      const owner = await signUpUser(ctx().app);
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('twice') });
      const first = await invite(ctx(), owner.organizationId, owner, invitee.email, 'viewer');
      const second = await invite(ctx(), owner.organizationId, owner, invitee.email, 'member');
      expect(second.token).not.toBe(first.token);

      const listed = (await listInvitations(owner, owner.organizationId)).json().data;
      expect(listed.map((row: { id: string; role: string }) => [row.id, row.role])).toEqual([
        [second.id, 'member'],
      ]);
      expect((await accept(invitee, first.token)).statusCode).toBe(404);
      expect((await accept(invitee, second.token)).json().role).toBe('member');
    });

    it('lists every invalid field in details', async () => {
      const owner = await signUpUser(ctx().app);
      const response = await post(owner, owner.organizationId, { email: 'not-an-email', role: 'boss' });
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.email', 'body.role']);
      const missing = await post(owner, owner.organizationId, {});
      expect(
        missing
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.email', 'body.role']);
    });
  });

  describe('GET /organizations/{id}/invitations', () => {
    it('lists invitations newest first to admins and owners, paginated', async () => {
      const owner = await signUpUser(ctx().app);
      const admin = await signUpUser(ctx().app);
      const adminInvite = await invite(ctx(), owner.organizationId, owner, admin.email, 'admin');
      await accept(admin, adminInvite.token);
      const later = [];
      for (const label of ['one', 'two']) {
        later.push(await invite(ctx(), owner.organizationId, admin, uniqueEmail(label), 'member'));
      }

      const first = await listInvitations(admin, owner.organizationId, '?limit=2');
      expect(first.statusCode).toBe(200);
      expect(first.json().pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
      expect(first.json().data.map((row: { id: string }) => row.id)).toEqual([later[1]?.id, later[0]?.id]);
      const second = await listInvitations(owner, owner.organizationId, '?limit=2&page=2');
      expect(second.json().data).toEqual([
        expect.objectContaining({ id: adminInvite.id, status: 'accepted', role: 'admin' }),
      ]);
      const outOfRange = await listInvitations(owner, owner.organizationId, '?limit=1000');
      expect(outOfRange.statusCode).toBe(400);
      expect(outOfRange.json().details).toEqual([{ path: 'querystring.limit', message: expect.any(String) }]);
    });

    it('refuses members and viewers', async () => {
      const crew = await team(ctx());
      for (const caller of [crew.member, crew.viewer]) {
        const response = await listInvitations(caller, crew.organizationId);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', 'This requires the admin role or higher'),
        );
      }
    });
  });

  describe('DELETE /organizations/{id}/invitations/{invitationId}', () => {
    const revoke = (user: SignedUpUser, organizationId: string, invitationId: string) =>
      ctx().app.inject({
        method: 'DELETE',
        url: `/organizations/${organizationId}/invitations/${invitationId}`,
        headers: user.headers,
      });

    it('lets an admin revoke an invitation, whose token then stops working', async () => {
      const crew = await team(ctx());
      const invitee = await signUpUser(ctx().app, { email: uniqueEmail('revoked') });
      const invitation = await invite(ctx(), crew.organizationId, crew.owner, invitee.email, 'member');

      for (const caller of [crew.member, crew.viewer]) {
        expect((await revoke(caller, crew.organizationId, invitation.id)).statusCode).toBe(403);
      }
      const response = await revoke(crew.admin, crew.organizationId, invitation.id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: invitation.id, deleted: true });
      const listed = (await listInvitations(crew.owner, crew.organizationId)).json().data;
      expect(listed.map((row: { id: string }) => row.id)).not.toContain(invitation.id);
      expect((await accept(invitee, invitation.token)).statusCode).toBe(404);

      const again = await revoke(crew.admin, crew.organizationId, invitation.id);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual(errorBody('NOT_FOUND', 'Invitation not found'));
    });

    it('leaves revoking an owner invitation to owners', async () => {
      const crew = await team(ctx());
      const invitation = await invite(ctx(), crew.organizationId, crew.owner, uniqueEmail('boss'), 'owner');
      expect((await revoke(crew.admin, crew.organizationId, invitation.id)).statusCode).toBe(403);
      expect((await revoke(crew.owner, crew.organizationId, invitation.id)).statusCode).toBe(200);
    });

    it('answers 404 for an invitation of another organization', async () => {
      const crew = await team(ctx());
      const elsewhere = await invite(
        ctx(),
        crew.outsider.organizationId,
        crew.outsider,
        uniqueEmail('x'),
        'member',
      );
      const response = await revoke(crew.owner, crew.organizationId, elsewhere.id);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Invitation not found'));
      const stillThere = (await listInvitations(crew.outsider, crew.outsider.organizationId)).json().data;
      expect(stillThere.map((row: { id: string }) => row.id)).toEqual([elsewhere.id]);
    });
  });
});
