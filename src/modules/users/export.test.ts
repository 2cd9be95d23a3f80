import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { betaAccessRequests, invitations, memberships, users } from '../../db/schema/index.ts';
import { hashToken } from '../../lib/crypto.ts';

const DAY = 24 * 3600 * 1000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Method = 'GET' | 'POST';

describe('GET /users/me/export', () => {
  const ctx = useTestApp();
  const inject = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const db = () => ctx().database.db;

  it('exports everything about the user as an attachment, without any secret', async () => {
    const ada = await signUpUser(ctx().app, { name: 'Ada' });
    const bob = await signUpUser(ctx().app, { name: 'Bob' });
    await db()
      .insert(memberships)
      .values({ organizationId: bob.organizationId, userId: ada.id, role: 'viewer' });
    const signIn = await inject(
      'POST',
      '/auth/sign-in',
      { 'user-agent': 'Export Browser' },
      { email: ada.email, password: ada.password },
    );
    const secondToken: string = signIn.json().data.session.sessionId;
    const created = (await inject('POST', '/users/me/api-keys', ada.headers, { name: 'ci' })).json();
    const inviteToken = 'invitation-token-that-must-not-leak';
    const expiresAt = new Date(Date.now() + 7 * DAY);
    const [invitation] = await db()
      .insert(invitations)
      .values({
        organizationId: ada.organizationId,
        email: 'friend@example.com',
        role: 'member',
        tokenHash: hashToken(inviteToken),
        invitedBy: ada.id,
        expiresAt,
      })
      .returning();
    const [beta] = await db()
      .insert(betaAccessRequests)
      .values({ email: ada.email, name: 'Ada', company: 'Engines Ltd', useCase: 'notes' })
      .returning();

    const response = await inject('GET', '/users/me/export', ada.headers);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="knowledge-hub-export.json"');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(body).toEqual({
      exportedAt: expect.stringMatching(ISO),
      profile: {
        id: ada.id,
        email: ada.email,
        name: 'Ada',
        avatarUrl: null,
        defaultOrganizationId: ada.organizationId,
        emailVerifiedAt: null,
        hasPassword: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
      linkedAccounts: [],
      memberships: [
        {
          organizationId: ada.organizationId,
          organizationName: "Ada's workspace",
          role: 'owner',
          joinedAt: expect.stringMatching(ISO),
        },
        {
          organizationId: bob.organizationId,
          organizationName: "Bob's workspace",
          role: 'viewer',
          joinedAt: expect.stringMatching(ISO),
        },
      ],
      sessions: [
        expect.objectContaining({ userAgent: 'Export Browser', current: false }),
        expect.objectContaining({ userAgent: 'lightMyRequest', current: true }),
      ],
      apiKeys: [
        {
          id: created.id,
          name: 'ci',
          prefix: created.prefix,
          createdAt: created.createdAt,
          lastUsedAt: null,
          expiresAt: null,
        },
      ],
      invitationsSent: [
        {
          id: invitation?.id,
          organizationId: ada.organizationId,
          email: 'friend@example.com',
          role: 'member',
          createdAt: expect.stringMatching(ISO),
          expiresAt: expiresAt.toISOString(),
          acceptedAt: null,
        },
      ],
      betaAccessRequest: {
        id: beta?.id,
        email: ada.email,
        name: 'Ada',
        company: 'Engines Ltd',
        useCase: 'notes',
        status: 'pending',
        createdAt: expect.stringMatching(ISO),
        approvedAt: null,
      },
    });

    const [stored] = await db()
      .select({ passwordHash: users.passwordHash })
      .from(users)
      .where(eq(users.id, ada.id));
    const secrets = [
      ada.password,
      ada.token,
      secondToken,
      created.key,
      inviteToken,
      hashToken(ada.token),
      hashToken(secondToken),
      hashToken(created.key),
      hashToken(inviteToken),
      stored?.passwordHash as string,
    ];
    for (const secret of secrets) expect(response.body).not.toContain(secret);
  });

  it("contains none of another user's data", async () => {
    const ada = await signUpUser(ctx().app);
    await inject('POST', '/users/me/api-keys', ada.headers, { name: 'ada key' });
    const bob = await signUpUser(ctx().app);
    const body = (await inject('GET', '/users/me/export', bob.headers)).json();
    expect(body.apiKeys).toEqual([]);
    expect(body.sessions).toHaveLength(1);
    expect(body.betaAccessRequest).toBeNull();
    expect(body.invitationsSent).toEqual([]);
    expect(JSON.stringify(body)).not.toContain(ada.id);
    expect(JSON.stringify(body)).not.toContain(ada.organizationId);
  });
});
