import { beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { errorBody, invite, type Team, team, useMailingTestApp } from './test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('organizations', () => {
  const ctx = useMailingTestApp();

  async function createOrganization(user: SignedUpUser, payload: Record<string, unknown>) {
    return ctx().app.inject({ method: 'POST', url: '/organizations', headers: user.headers, payload });
  }

  async function read(user: SignedUpUser, organizationId: string) {
    return ctx().app.inject({
      method: 'GET',
      url: `/organizations/${organizationId}`,
      headers: user.headers,
    });
  }

  async function defaultOrganizationOf(user: Pick<SignedUpUser, 'headers'>) {
    const response = await ctx().app.inject({ method: 'GET', url: '/auth/session', headers: user.headers });
    expect(response.statusCode).toBe(200);
    return response.json().data.user.defaultOrganizationId;
  }

  describe('POST /organizations', () => {
    it('creates an organization owned by the caller, with a slug from its name', async () => {
      const user = await signUpUser(ctx().app);
      const response = await createOrganization(user, { name: '  Café Research Lab ', extra: true });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        id: expect.any(String),
        name: 'Café Research Lab',
        slug: 'cafe-research-lab',
        retentionDays: 30,
        role: 'owner',
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const readBack = await read(user, body.id);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toEqual(body);
    });

    it('takes an explicit slug, and refuses one that is taken with 400 SLUG_TAKEN', async () => {
      const user = await signUpUser(ctx().app);
      const slug = `acme-${Date.now()}`;
      const first = await createOrganization(user, { name: 'Acme', slug });
      expect(first.statusCode).toBe(201);
      expect(first.json()).toMatchObject({ name: 'Acme', slug, role: 'owner' });

      const other = await signUpUser(ctx().app);
      const taken = await createOrganization(other, { name: 'Other Acme', slug });
      expect(taken.statusCode).toBe(400);
      expect(taken.json()).toEqual(errorBody('SLUG_TAKEN', 'An organization with this slug already exists'));
    });

    it('gives a generated slug a suffix when the plain one is taken', async () => {
      const [ada, bob] = [await signUpUser(ctx().app), await signUpUser(ctx().app)];
      const name = `Shared Name ${Date.now()}`;
      const first = (await createOrganization(ada, { name })).json();
      const second = (await createOrganization(bob, { name })).json();
      expect(second.slug).not.toBe(first.slug);
      expect(second.slug).toMatch(new RegExp(`^${first.slug}-[0-9a-f]{6}$`));
    });

    it('lists every invalid field in details', async () => {
      const user = await signUpUser(ctx().app);
      const response = await createOrganization(user, { name: ' ', slug: 'Not_A_Slug' });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
        'body.name',
        'body.slug',
      ]);

      const tooLong = await createOrganization(user, { name: 'x'.repeat(101), slug: 'ab' });
      expect(
        tooLong
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.name', 'body.slug']);
      const missing = await createOrganization(user, {});
      expect(missing.json().details).toEqual([{ path: 'body.name', message: expect.any(String) }]);
    });
  });

  describe('GET /organizations', () => {
    it("lists the caller's organizations with their role, oldest membership first, paginated", async () => {
      const owner = await signUpUser(ctx().app);
      const user = await signUpUser(ctx().app);
      const own = (await createOrganization(user, { name: 'Second' })).json();
      const { token } = await invite(ctx(), owner.organizationId, owner, user.email, 'viewer');
      await ctx().app.inject({ method: 'POST', url: `/invitations/${token}/accept`, headers: user.headers });

      const first = await ctx().app.inject({
        method: 'GET',
        url: '/organizations?limit=2',
        headers: user.headers,
      });
      expect(first.statusCode).toBe(200);
      expect(first.json().pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
      expect(first.json().data.map((org: { id: string; role: string }) => [org.id, org.role])).toEqual([
        [user.organizationId, 'owner'],
        [own.id, 'owner'],
      ]);

      const second = await ctx().app.inject({
        method: 'GET',
        url: '/organizations?limit=2&page=2',
        headers: user.headers,
      });
      expect(second.json().data).toEqual([
        {
          id: owner.organizationId,
          name: "Test User's workspace",
          slug: expect.any(String),
          retentionDays: 30,
          role: 'viewer',
          createdAt: isoDate,
          updatedAt: isoDate,
        },
      ]);
    });

    it('refuses pagination out of range', async () => {
      const user = await signUpUser(ctx().app);
      const response = await ctx().app.inject({
        method: 'GET',
        url: '/organizations?page=0&limit=101',
        headers: user.headers,
      });
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['querystring.limit', 'querystring.page']);
    });
  });

  describe('GET /organizations/{id}', () => {
    it('answers any member with their role, and 404 for unknown or malformed ids', async () => {
      const { organizationId, viewer, owner } = await team(ctx());
      const response = await read(viewer, organizationId);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: organizationId, role: 'viewer' });
      expect((await read(owner, organizationId)).json().role).toBe('owner');

      for (const id of [unknownId, 'not-a-uuid']) {
        const missing = await read(owner, id);
        expect(missing.statusCode).toBe(404);
        expect(missing.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
    });
  });

  describe('PATCH /organizations/{id}', () => {
    let crew: Team;
    beforeAll(async () => {
      crew = await team(ctx());
    });

    const update = (user: SignedUpUser, payload: Record<string, unknown>, id = crew.organizationId) =>
      ctx().app.inject({ method: 'PATCH', url: `/organizations/${id}`, headers: user.headers, payload });

    it('lets an admin change the name, slug and retention', async () => {
      const before = (await read(crew.owner, crew.organizationId)).json();
      ctx().clock.advance(5_000);
      try {
        const slug = `renamed-${Date.now()}`;
        const response = await update(crew.admin, { name: 'Renamed', slug, retentionDays: 3650 });
        expect(response.statusCode).toBe(200);
        const body = response.json();
        expect(body).toMatchObject({ name: 'Renamed', slug, retentionDays: 3650, role: 'admin' });
        expect(body.createdAt).toBe(before.createdAt);
        expect(Date.parse(body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
        expect((await read(crew.owner, crew.organizationId)).json()).toEqual({ ...body, role: 'owner' });
      } finally {
        ctx().clock.reset();
      }
    });

    it('lets the owner change one field, keeping the others and its own slug', async () => {
      const before = (await read(crew.owner, crew.organizationId)).json();
      const response = await update(crew.owner, { retentionDays: 1, slug: before.slug });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ name: before.name, slug: before.slug, retentionDays: 1 });
    });

    it('refuses members and viewers with 403', async () => {
      for (const user of [crew.member, crew.viewer]) {
        const response = await update(user, { name: 'Mine now' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', 'This requires the admin role or higher'),
        );
      }
      expect((await read(crew.owner, crew.organizationId)).json().name).not.toBe('Mine now');
    });

    it("refuses another organization's slug", async () => {
      const otherSlug = (await read(crew.outsider, crew.outsider.organizationId)).json().slug;
      const response = await update(crew.owner, { slug: otherSlug });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(errorBody('SLUG_TAKEN'));
    });

    it('lists every invalid field in details', async () => {
      const response = await update(crew.owner, { name: '', slug: '-bad-', retentionDays: 0 });
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.name', 'body.retentionDays', 'body.slug']);
      for (const retentionDays of [3651, 1.5, '30']) {
        const invalid = await update(crew.owner, { retentionDays });
        expect(invalid.statusCode).toBe(400);
        expect(invalid.json().details).toEqual([{ path: 'body.retentionDays', message: expect.any(String) }]);
      }
    });
  });

  describe('DELETE /organizations/{id}', () => {
    it('is for the owner only', async () => {
      const { organizationId, admin, member } = await team(ctx());
      for (const user of [admin, member]) {
        const response = await ctx().app.inject({
          method: 'DELETE',
          url: `/organizations/${organizationId}`,
          headers: user.headers,
        });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(
          errorBody('INSUFFICIENT_ROLE', 'This requires the owner role or higher'),
        );
      }
      expect((await read(admin, organizationId)).statusCode).toBe(200);
    });

    it('deletes the organization with its memberships and invitations, and moves default organizations', async () => {
      const owner = await signUpUser(ctx().app);
      const organization = (await createOrganization(owner, { name: 'Doomed' })).json();
      // Signed up from invitations, so this organization is their default.
      const onlyHere = await signUpFromInvitation(owner, organization.id);
      const alsoElsewhere = await signUpFromInvitation(owner, organization.id);
      const elsewhere = (
        await ctx().app.inject({
          method: 'POST',
          url: '/organizations',
          headers: alsoElsewhere.headers,
          payload: { name: 'Elsewhere' },
        })
      ).json();
      const pendingInvitation = await invite(ctx(), organization.id, owner, 'pending@example.com', 'member');
      expect(await defaultOrganizationOf(onlyHere)).toBe(organization.id);

      const response = await ctx().app.inject({
        method: 'DELETE',
        url: `/organizations/${organization.id}`,
        headers: owner.headers,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: organization.id, deleted: true });

      expect((await read(owner, organization.id)).statusCode).toBe(404);
      const members = await ctx().app.inject({
        method: 'GET',
        url: `/organizations/${organization.id}/members`,
        headers: owner.headers,
      });
      expect(members.statusCode).toBe(404);
      const pending = await signUpUser(ctx().app, { email: 'pending@example.com' });
      const accept = await ctx().app.inject({
        method: 'POST',
        url: `/invitations/${pendingInvitation.token}/accept`,
        headers: pending.headers,
      });
      expect(accept.statusCode).toBe(404);

      expect(await defaultOrganizationOf(onlyHere)).toBeNull();
      expect(await defaultOrganizationOf(alsoElsewhere)).toBe(elsewhere.id);
      expect(await defaultOrganizationOf(owner)).toBe(owner.organizationId);
    });

    async function signUpFromInvitation(owner: SignedUpUser, organizationId: string) {
      const email = `invitee-${Math.random().toString(36).slice(2)}@example.com`;
      const { token } = await invite(ctx(), organizationId, owner, email, 'member');
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/auth/sign-up',
        payload: { email, name: 'Invitee', password: 'correct horse battery staple', invitationToken: token },
      });
      expect(response.statusCode).toBe(201);
      return { headers: { authorization: `Bearer ${response.json().data.session.sessionId}` } };
    }
  });

  describe('every route', () => {
    let crew: Team;
    let invitation: { id: string; token: string };
    beforeAll(async () => {
      crew = await team(ctx());
      invitation = await invite(ctx(), crew.organizationId, crew.owner, 'someone@example.com', 'member');
    });

    const routes = () => {
      const org = `/organizations/${crew.organizationId}`;
      return [
        { method: 'POST', url: '/organizations', payload: { name: 'x' } },
        { method: 'GET', url: '/organizations' },
        { method: 'GET', url: org },
        { method: 'PATCH', url: org, payload: { name: 'Taken over' } },
        { method: 'DELETE', url: org },
        { method: 'GET', url: `${org}/members` },
        { method: 'PATCH', url: `${org}/members/${crew.member.id}`, payload: { role: 'viewer' } },
        { method: 'DELETE', url: `${org}/members/${crew.member.id}` },
        { method: 'POST', url: `${org}/invitations`, payload: { email: 'new@example.com', role: 'member' } },
        { method: 'GET', url: `${org}/invitations` },
        { method: 'DELETE', url: `${org}/invitations/${invitation.id}` },
        { method: 'POST', url: `/invitations/${invitation.token}/accept` },
      ] as const;
    };

    it('answers 401 without credentials and with an invalid token', async () => {
      for (const route of routes()) {
        const anonymous = await ctx().app.inject(route);
        expect(anonymous.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
        const invalid = await ctx().app.inject({
          ...route,
          headers: { authorization: 'Bearer not-a-session' },
        });
        expect(invalid.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(invalid.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
      }
    });

    it('answers 404 to an outsider on every route that names the organization in its path, changing nothing', async () => {
      const pathAddressed = routes().filter((route) => route.url.startsWith('/organizations/'));
      expect(pathAddressed).toHaveLength(9);
      for (const route of pathAddressed) {
        const response = await ctx().app.inject({ ...route, headers: crew.outsider.headers });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Organization not found'));
      }
      const organization = await read(crew.owner, crew.organizationId);
      expect(organization.json().name).toBe("Olivia Owner's workspace");
      const members = await ctx().app.inject({
        method: 'GET',
        url: `/organizations/${crew.organizationId}/members`,
        headers: crew.owner.headers,
      });
      expect(members.json().data.map((member: { role: string }) => member.role)).toEqual([
        'owner',
        'admin',
        'member',
        'viewer',
      ]);
      const invitations = await ctx().app.inject({
        method: 'GET',
        url: `/organizations/${crew.organizationId}/invitations`,
        headers: crew.owner.headers,
      });
      expect(invitations.json().data.map((row: { email: string }) => row.email)).not.toContain(
        'new@example.com',
      );
      expect(invitations.json().data.find((row: { id: string }) => row.id === invitation.id)?.status).toBe(
        'pending',
      );
    });
  });
});
