import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { type EventStream, openEventStream } from '../../../test/helpers/sse.ts';
import type { AppContext } from '../../context.ts';
import { type NotificationInput, notify } from './notify.ts';

/** Creates a notification the way a module does: inside a transaction of `instance`. */
async function notifyThrough(
  instance: TestApp,
  input: Partial<NotificationInput> & { recipientIds: string[] },
) {
  const context: AppContext = {
    config: instance.config,
    db: instance.database.db,
    jobs: instance.jobs,
    clock: instance.clock,
    logger: instance.app.log,
  };
  await instance.database.db.transaction((tx) =>
    notify(tx, context, {
      type: 'role_change',
      organizationId: null,
      actorId: null,
      title: 'Your role in Acme is now admin',
      body: 'Olga Owner changed your role from member to admin.',
      targetType: 'organization',
      targetId: null,
      data: { from: 'member', to: 'admin' },
      ...input,
    }),
  );
}

describe('GET /notifications/stream', () => {
  // Two instances of the service on one database, as behind a load balancer; streams connect to B.
  let a: TestApp;
  let b: TestApp;
  let baseUrl: string;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    a = await buildTestApp();
    b = await buildTestApp({
      databaseUrl: a.databaseUrl,
      env: { NOTIFICATION_STREAM_HEARTBEAT_SECONDS: '1' },
    });
    baseUrl = await b.app.listen({ port: 0, host: '127.0.0.1' });
    alice = await signUpUser(a.app, { name: 'Alice' });
    bob = await signUpUser(a.app, { name: 'Bob' });
  });

  afterAll(async () => {
    await Promise.all(streams.map((stream) => stream.close()));
    await b?.close();
    await a?.close();
  });

  const connect = async (user: SignedUpUser, headers: Record<string, string> = {}) => {
    const stream = await openEventStream(`${baseUrl}/notifications/stream`, { ...user.headers, ...headers });
    streams.push(stream);
    return stream;
  };

  it('answers 401 without credentials or with a bad token, like every protected route', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }]) {
      const response = await b.app.inject({ method: 'GET', url: '/notifications/stream', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: expect.any(String) });
    }
  });

  it('opens an event stream that first says ready with the unread count', async () => {
    await notifyThrough(a, { recipientIds: [bob.id] });
    const stream = await connect(bob);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const ready = await stream.next();
    expect(ready).toEqual({ event: 'ready', data: JSON.stringify({ unreadCount: 1 }) });
    await stream.close();
  });

  it('delivers a notification created by another instance, with the API fields, to its recipient only', async () => {
    const aliceStream = await connect(alice);
    const bobStream = await connect(bob);
    await aliceStream.next('ready');
    await bobStream.next('ready');

    await notifyThrough(a, { recipientIds: [alice.id], actorId: bob.id, title: 'For Alice' });
    const event = await aliceStream.next('notification');
    const body = JSON.parse(event.data);
    expect(event.id).toBe(body.id);
    expect(body).toStrictEqual({
      id: expect.any(String),
      type: 'role_change',
      title: 'For Alice',
      body: 'Olga Owner changed your role from member to admin.',
      organizationId: null,
      actor: { id: bob.id, name: 'Bob', avatarUrl: null },
      targetType: 'organization',
      targetId: null,
      data: { from: 'member', to: 'admin' },
      read: false,
      readAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    // The list endpoint shows the same notification the same way.
    const listed = await a.app.inject({ method: 'GET', url: '/notifications', headers: alice.headers });
    expect(listed.json().data[0]).toStrictEqual(body);

    await notifyThrough(a, { recipientIds: [bob.id], title: 'For Bob' });
    const bobs = await bobStream.next('notification');
    expect(JSON.parse(bobs.data).title).toBe('For Bob');
    // Alice's stream got nothing of Bob's.
    expect(aliceStream.events.filter((e) => e.event === 'notification')).toHaveLength(1);
    await aliceStream.close();
    await bobStream.close();
  });

  it('keeps the order of notifications and sends each once', async () => {
    const stream = await connect(alice);
    await stream.next('ready');
    for (const title of ['first', 'second', 'third']) {
      await notifyThrough(a, { recipientIds: [alice.id], title });
    }
    const titles = [];
    for (let i = 0; i < 3; i++) titles.push(JSON.parse((await stream.next('notification')).data).title);
    expect(titles).toEqual(['first', 'second', 'third']);
    await stream.close();
  });

  it('replays what came after Last-Event-ID, oldest first, then goes live', async () => {
    const first = await connect(bob);
    await first.next('ready');
    await notifyThrough(a, { recipientIds: [bob.id], title: 'seen' });
    const seen = await first.next('notification');
    await first.close();

    await notifyThrough(a, { recipientIds: [bob.id], title: 'missed 1' });
    await notifyThrough(a, { recipientIds: [bob.id], title: 'missed 2' });
    const again = await connect(bob, { 'last-event-id': seen.id as string });
    await again.next('ready');
    const replayed = [await again.next('notification'), await again.next('notification')];
    expect(replayed.map((event) => JSON.parse(event.data).title)).toEqual(['missed 1', 'missed 2']);
    await notifyThrough(a, { recipientIds: [bob.id], title: 'live' });
    expect(JSON.parse((await again.next('notification')).data).title).toBe('live');
    await again.close();
  });

  it('ignores a Last-Event-ID that is not a notification id', async () => {
    const stream = await connect(bob, { 'last-event-id': 'not-an-id' });
    await stream.next('ready');
    await notifyThrough(a, { recipientIds: [bob.id], title: 'only this' });
    expect(JSON.parse((await stream.next('notification')).data).title).toBe('only this');
    await stream.close();
  });

  it('recovers when its LISTEN connection is cut, delivering what was created meanwhile', async () => {
    const stream = await connect(alice);
    await stream.next('ready');
    await b.database.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = 'knowledge-hub-notifications' and datname = current_database()`,
    );
    await notifyThrough(a, { recipientIds: [alice.id], title: 'during the gap' });
    expect(JSON.parse((await stream.next('notification', 15_000)).data).title).toBe('during the gap');
    await notifyThrough(a, { recipientIds: [alice.id], title: 'after the gap' });
    expect(JSON.parse((await stream.next('notification', 15_000)).data).title).toBe('after the gap');
    await stream.close();
  });

  it('refuses an eleventh stream of one person on one instance with 429, until one closes', async () => {
    const dave = await signUpUser(a.app, { name: 'Dave' });
    const open = await Promise.all(Array.from({ length: 10 }, () => connect(dave)));
    await Promise.all(open.map((stream) => stream.next('ready')));
    const refused = await b.app.inject({
      method: 'GET',
      url: '/notifications/stream',
      headers: dave.headers,
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual({
      success: false,
      error: 'At most 10 notification streams may be open at once; close one first',
      code: 'TOO_MANY_STREAMS',
    });
    // Another person, and the same person on another instance, are not affected.
    const elsewhere = await openEventStream(
      `${await a.app.listen({ port: 0, host: '127.0.0.1' })}/notifications/stream`,
      dave.headers,
    );
    streams.push(elsewhere);
    await elsewhere.next('ready');
    await open[0]?.close();
    await expect
      .poll(async () => {
        const retry = await openEventStream(`${baseUrl}/notifications/stream`, dave.headers);
        streams.push(retry);
        return retry.response.status;
      })
      .toBe(200);
    await Promise.all(open.map((stream) => stream.close()));
  });

  it('ends the stream once its session is signed out', async () => {
    const carol = await signUpUser(a.app, { name: 'Carol' });
    const stream = await connect(carol);
    await stream.next('ready');
    const signOut = await a.app.inject({ method: 'POST', url: '/auth/sign-out', headers: carol.headers });
    expect(signOut.statusCode).toBe(200);
    await stream.closedByServer();
  });

  it('ends open streams when the instance shuts down, so shutdown does not wait for clients', async () => {
    const c = await buildTestApp({ databaseUrl: a.databaseUrl });
    const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await openEventStream(`${url}/notifications/stream`, alice.headers);
    await stream.next('ready');
    await c.close();
    await stream.closedByServer();
  });
});
