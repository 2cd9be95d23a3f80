import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { activityEvents, chatConversations, memberships } from '../../db/schema/index.ts';
import { type Team, team, unknownId } from '../transcripts/test-support.ts';
import { titleFrom } from './service.ts';
import { anyId, isoDate } from './test-support.ts';

describe('chat conversations', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let crew: Team;
  let outsider: SignedUpUser;

  beforeAll(async () => {
    crew = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
  });

  const create = async (user: SignedUpUser, payload: object = {}) => {
    const response = await request(user, 'POST', '/chat/conversations', payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };

  it('creates an empty conversation in the default organization, or the one named', async () => {
    const response = await request(crew.owner, 'POST', '/chat/conversations', {});
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toStrictEqual({
      id: anyId,
      organizationId: crew.organizationId,
      title: 'New conversation',
      messageCount: 0,
      lastMessageAt: null,
      createdAt: isoDate,
      updatedAt: body.createdAt,
      messages: [],
    });
    const named = await create(crew.member, {
      organizationId: crew.organizationId,
      title: '  Launch prep  ',
    });
    expect(named).toMatchObject({ organizationId: crew.organizationId, title: 'Launch prep' });
    const events = await ctx()
      .database.db.select()
      .from(activityEvents)
      .where(
        and(eq(activityEvents.action, 'chat.conversation_created'), eq(activityEvents.targetId, named.id)),
      );
    expect(events).toMatchObject([
      {
        organizationId: crew.organizationId,
        actorId: crew.member.id,
        targetType: 'chat_conversation',
        metadata: { title: 'Launch prep' },
      },
    ]);
  });

  it('reads, renames and deletes a conversation of its owner', async () => {
    const created = await create(crew.admin, { title: 'Draft' });
    const read = await request(crew.admin, 'GET', `/chat/conversations/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toStrictEqual(created);

    const renamed = await request(crew.admin, 'PATCH', `/chat/conversations/${created.id}`, {
      title: ' Pricing questions ',
    });
    expect(renamed.statusCode).toBe(200);
    const { messages: _messages, ...summary } = created;
    expect(renamed.json()).toStrictEqual({ ...summary, title: 'Pricing questions', updatedAt: isoDate });
    expect((await request(crew.admin, 'GET', `/chat/conversations/${created.id}`)).json().title).toBe(
      'Pricing questions',
    );

    const deleted = await request(crew.admin, 'DELETE', `/chat/conversations/${created.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toStrictEqual({ id: created.id, deleted: true });
    expect((await request(crew.admin, 'GET', `/chat/conversations/${created.id}`)).statusCode).toBe(404);
    const rows = await ctx()
      .database.db.select()
      .from(chatConversations)
      .where(eq(chatConversations.id, created.id));
    expect(rows).toEqual([]);
    const events = await ctx()
      .database.db.select({ action: activityEvents.action, metadata: activityEvents.metadata })
      .from(activityEvents)
      .where(eq(activityEvents.targetId, created.id))
      .orderBy(activityEvents.createdAt);
    expect(events).toStrictEqual([
      { action: 'chat.conversation_created', metadata: { title: 'Draft' } },
      {
        action: 'chat.conversation_renamed',
        metadata: { title: 'Pricing questions', previousTitle: 'Draft' },
      },
      { action: 'chat.conversation_deleted', metadata: { title: 'Pricing questions' } },
    ]);
  });

  it("lists the caller's conversations, most recently updated first, paginated", async () => {
    const user = await signUpUser(ctx().app, { name: 'Lia Lister' });
    const first = await create(user, { title: 'First' });
    const second = await create(user, { title: 'Second' });
    const third = await create(user, { title: 'Third' });
    // Renaming the first makes it the most recently updated.
    ctx().clock.advance(1000);
    await request(user, 'PATCH', `/chat/conversations/${first.id}`, { title: 'First, renamed' });
    const page = await request(user, 'GET', '/chat/conversations?page=1&limit=2');
    expect(page.statusCode).toBe(200);
    const summary = ({ messages: _messages, ...rest }: { messages: unknown }) => rest;
    expect(page.json()).toStrictEqual({
      data: [{ ...summary(first), title: 'First, renamed', updatedAt: isoDate }, summary(third)],
      pagination: { page: 1, limit: 2, total: 3, totalPages: 2 },
    });
    const next = await request(
      user,
      'GET',
      `/chat/conversations?page=2&limit=2&organizationId=${user.organizationId}`,
    );
    expect(next.json()).toStrictEqual({
      data: [summary(second)],
      pagination: { page: 2, limit: 2, total: 3, totalPages: 2 },
    });
  });

  it('keeps conversations to their owner: anyone else gets 404 and never sees them listed', async () => {
    const mine = await create(crew.member, { title: 'Private thoughts' });
    for (const other of [crew.otherMember, crew.owner, outsider]) {
      const url = `/chat/conversations/${mine.id}`;
      expect((await request(other, 'GET', url)).statusCode).toBe(404);
      expect((await request(other, 'GET', `${url}/messages`)).statusCode).toBe(404);
      expect((await request(other, 'PATCH', url, { title: 'Mine now' })).statusCode).toBe(404);
      expect((await request(other, 'POST', `${url}/messages`, { content: 'Hello?' })).statusCode).toBe(404);
      expect(
        (await request(other, 'POST', '/ai/chat', { message: 'Hello?', conversationId: mine.id })).statusCode,
      ).toBe(404);
      const deleted = await request(other, 'DELETE', url);
      expect(deleted.statusCode).toBe(404);
      expect(deleted.json()).toStrictEqual({
        success: false,
        error: 'Conversation not found',
        code: 'NOT_FOUND',
      });
      const listed = (await request(other, 'GET', '/chat/conversations?limit=100')).json();
      expect(listed.data.map((c: { id: string }) => c.id)).not.toContain(mine.id);
    }
    expect((await request(crew.member, 'GET', `/chat/conversations/${mine.id}`)).json().title).toBe(
      'Private thoughts',
    );
    expect((await request(crew.member, 'GET', `/chat/conversations/${unknownId}`)).statusCode).toBe(404);
    expect((await request(crew.member, 'GET', '/chat/conversations/not-a-uuid')).statusCode).toBe(404);
  });

  it('hides the conversations of an organization its owner left', async () => {
    const leaver = await signUpUser(ctx().app, { name: 'Lou Leaver' });
    await ctx()
      .database.db.insert(memberships)
      .values({ organizationId: crew.organizationId, userId: leaver.id, role: 'member' });
    const there = await create(leaver, { organizationId: crew.organizationId, title: 'Team chat' });
    const home = await create(leaver, { title: 'Home chat' });
    const removed = await request(
      crew.owner,
      'DELETE',
      `/organizations/${crew.organizationId}/members/${leaver.id}`,
    );
    expect(removed.statusCode, removed.body).toBe(200);

    expect((await request(leaver, 'GET', `/chat/conversations/${there.id}`)).statusCode).toBe(404);
    expect((await request(leaver, 'DELETE', `/chat/conversations/${there.id}`)).statusCode).toBe(404);
    const listed = (await request(leaver, 'GET', '/chat/conversations')).json();
    expect(listed.data.map((c: { id: string }) => c.id)).toStrictEqual([home.id]);
    const named = await request(leaver, 'GET', `/chat/conversations?organizationId=${crew.organizationId}`);
    expect(named.statusCode).toBe(403);
    expect(named.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
  });

  it('refuses invalid input with 400 naming the fields', async () => {
    const mine = await create(crew.viewer);
    const cases: Array<[string, string, object | undefined, string[]]> = [
      ['POST', '/chat/conversations', { title: '   ' }, ['body.title']],
      [
        'POST',
        '/chat/conversations',
        { title: 'x'.repeat(201), message: '' },
        ['body.title', 'body.message'],
      ],
      ['POST', '/chat/conversations', { organizationId: 'nope' }, ['body.organizationId']],
      ['PATCH', `/chat/conversations/${mine.id}`, {}, ['body.title']],
      ['PATCH', `/chat/conversations/${mine.id}`, { title: '' }, ['body.title']],
      ['GET', '/chat/conversations?limit=0', undefined, ['querystring.limit']],
      ['GET', '/chat/conversations?organizationId=x', undefined, ['querystring.organizationId']],
      ['GET', `/chat/conversations/${mine.id}/messages?page=0`, undefined, ['querystring.page']],
      ['POST', `/chat/conversations/${mine.id}/messages`, { content: ' ' }, ['body.content']],
      ['POST', `/chat/conversations/${mine.id}/messages`, { content: 'x'.repeat(4001) }, ['body.content']],
      ['POST', '/ai/chat', { message: '' }, ['body.message']],
      [
        'POST',
        '/ai/chat',
        { message: 'Hi', conversationId: 'x', videoIds: [] },
        ['body.conversationId', 'body.videoIds'],
      ],
      [
        'POST',
        '/ai/chat',
        { message: 'Hi', conversationId: mine.id, organizationId: outsider.organizationId },
        ['body.organizationId'],
      ],
    ];
    for (const [method, url, payload, paths] of cases) {
      const response = await request(crew.viewer, method as 'GET', url, payload);
      expect(response.statusCode, `${method} ${url} ${response.body}`).toBe(400);
      expect(
        response
          .json()
          .details.map((d: { path: string }) => d.path)
          .sort(),
        url,
      ).toStrictEqual(paths.sort());
    }
  });

  it('refuses an organization the caller does not belong to with 403', async () => {
    for (const [url, payload] of [
      ['/chat/conversations', { organizationId: outsider.organizationId }],
      ['/ai/chat', { message: 'Hi', organizationId: outsider.organizationId }],
    ] as const) {
      const response = await request(crew.viewer, 'POST', url, payload);
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toStrictEqual({
        success: false,
        error: 'You are not a member of this organization',
        code: 'NOT_A_MEMBER',
      });
    }
  });

  it('answers 401 to anonymous callers on every route', async () => {
    const mine = await create(crew.viewer);
    const routes: Array<[string, string, object | undefined]> = [
      ['GET', '/chat/conversations', undefined],
      ['POST', '/chat/conversations', {}],
      ['GET', `/chat/conversations/${mine.id}`, undefined],
      ['PATCH', `/chat/conversations/${mine.id}`, { title: 'x' }],
      ['DELETE', `/chat/conversations/${mine.id}`, undefined],
      ['GET', `/chat/conversations/${mine.id}/messages`, undefined],
      ['POST', `/chat/conversations/${mine.id}/messages`, { content: 'Hello' }],
      ['POST', '/ai/chat', { message: 'Hello' }],
    ];
    for (const [method, url, payload] of routes) {
      const response = await request(null, method as 'GET', url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
  });

  it('titles a conversation after the start of its first message, cut at a word boundary', () => {
    expect(titleFrom('  When is   the launch date? ')).toBe('When is the launch date?');
    const long =
      'What did we decide about the pricing of the enterprise plan during the last quarterly review?';
    expect(titleFrom(long)).toBe('What did we decide about the pricing of the enterprise plan…');
    expect(titleFrom('x'.repeat(80))).toBe(`${'x'.repeat(60)}…`);
  });
});
