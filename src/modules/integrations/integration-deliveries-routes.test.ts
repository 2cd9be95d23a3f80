import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import {
  anyId,
  clientOf,
  pathsOf,
  secretPattern,
  storedRow,
  tablesHolding,
  UNKNOWN_ID,
  until,
} from './route-test-support.ts';
import { type Receiver, startReceiver } from './test-support.ts';

/*
 * The integration routes where they deliver: loopback receivers, with WEBHOOKS_ALLOW_PRIVATE=true.
 */

describe('integration routes with WEBHOOKS_ALLOW_PRIVATE=true', () => {
  const ctx = useMailingTestApp({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  const call = clientOf(ctx);
  let b: Team;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    b = await team(ctx());
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const createVideo = async (user: SignedUpUser, organizationId: string, title: string) => {
    const response = await call('POST', '/videos', user, { organizationId, title, duration: '1:00' });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string };
  };
  const deliveriesOf = async (webhookId: string, query = '') => {
    const response = await call('GET', `/integrations/webhooks/${webhookId}/deliveries${query}`, b.admin);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Array<{
        id: string;
        status: string;
        attempts: number;
        eventId: string;
        lastStatusCode: number | null;
      }>;
      pagination: unknown;
    };
  };

  it('accepts an http URL on loopback', async () => {
    const response = await call('POST', '/integrations/webhooks', b.admin, {
      organizationId: b.organizationId,
      url: `${receiver.url}/accepted`,
      events: ['clip.created'],
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      url: `${receiver.url}/accepted`,
      kind: 'webhook',
      secret: expect.stringMatching(secretPattern),
    });
    const changed = await call('PATCH', `/integrations/webhooks/${response.json().id}`, b.admin, {
      url: 'http://10.0.0.1:8080/hooks',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().url).toBe('http://10.0.0.1:8080/hooks');
  });

  it('still refuses a user name and password in the URL, and non-http schemes', async () => {
    for (const [url, message] of [
      [
        `http://user:password@127.0.0.1:${new URL(receiver.url).port}/`,
        'must not contain a user name or password',
      ],
      ['ftp://127.0.0.1/hooks', 'must be an http(s) URL'],
    ] as const) {
      const response = await call('POST', '/integrations/webhooks', b.admin, {
        organizationId: b.organizationId,
        url,
        events: ['clip.created'],
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().details).toEqual([{ path: 'body.url', message }]);
    }
  });

  describe('deliveries', () => {
    let webhookId: string;
    let firstVideo: { id: string };
    let firstDelivery: { id: string; eventId: string };

    beforeAll(async () => {
      const created = await call('POST', '/integrations/webhooks', b.owner, {
        organizationId: b.organizationId,
        url: `${receiver.url}/deliveries`,
        events: ['video.created'],
      });
      expect(created.statusCode, created.body).toBe(201);
      webhookId = created.json().id;
      firstVideo = await createVideo(b.member, b.organizationId, 'Quarterly planning');
      firstDelivery = await until('the first delivery', async () => {
        const page = await deliveriesOf(webhookId);
        return page.data.find((delivery) => delivery.status === 'delivered');
      });
    });

    it('lists the deliveries with their payloads and outcomes to admins and owners', async () => {
      const page = await deliveriesOf(webhookId);
      expect(page).toEqual({
        data: [
          {
            id: firstDelivery.id,
            integrationId: webhookId,
            eventId: anyId,
            eventType: 'video.created',
            status: 'delivered',
            attempts: 1,
            nextAttemptAt: null,
            lastAttemptAt: isoDate,
            lastStatusCode: 200,
            lastError: null,
            deliveredAt: isoDate,
            createdAt: isoDate,
            payload: {
              id: firstDelivery.eventId,
              type: 'video.created',
              createdAt: isoDate,
              data: expect.objectContaining({
                object: 'video',
                id: firstVideo.id,
                organizationId: b.organizationId,
                actorId: b.member.id,
              }),
            },
          },
        ],
        pagination: { page: 1, limit: 20, total: 1, totalPages: 1 },
      });
      const byOwner = await call('GET', `/integrations/webhooks/${webhookId}/deliveries`, b.owner);
      expect(byOwner.json()).toEqual(page);
      const received = receiver.received.filter((request) => request.path === '/deliveries');
      expect(received.map((request) => (request.json as { id: string }).id)).toEqual([firstDelivery.eventId]);
    });

    it('is for admins and owners: members and viewers get 403, outsiders and unknown webhooks 404', async () => {
      for (const user of [b.member, b.viewer]) {
        const response = await call('GET', `/integrations/webhooks/${webhookId}/deliveries`, user);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
        const retry = await call(
          'POST',
          `/integrations/webhooks/${webhookId}/deliveries/${firstDelivery.id}/retry`,
          user,
        );
        expect(retry.statusCode).toBe(403);
        expect(retry.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      for (const [user, url] of [
        [b.outsider, `/integrations/webhooks/${webhookId}/deliveries`],
        [b.outsider, `/integrations/webhooks/${webhookId}/deliveries/${firstDelivery.id}/retry`],
        [b.owner, `/integrations/webhooks/${UNKNOWN_ID}/deliveries`],
        [b.owner, `/integrations/webhooks/${UNKNOWN_ID}/deliveries/${firstDelivery.id}/retry`],
        [b.owner, `/integrations/webhooks/${webhookId}/deliveries/nope/retry`],
      ] as const) {
        const response = await call(url.endsWith('/retry') ? 'POST' : 'GET', url, user);
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
      expect((await deliveriesOf(webhookId)).data[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    });

    it('validates the query: page, limit and status', async () => {
      const response = await call(
        'GET',
        `/integrations/webhooks/${webhookId}/deliveries?status=lost&limit=0&page=0`,
        b.admin,
      );
      expect(response.statusCode).toBe(400);
      expect(pathsOf(response).sort()).toEqual([
        'querystring.limit',
        'querystring.page',
        'querystring.status',
      ]);
    });

    it('pages newest first and filters by status; a failed attempt stays pending with its outcome', async () => {
      receiver.answerNext({ status: 500, body: 'receiver down' });
      await createVideo(b.admin, b.organizationId, 'Incident review');
      const failing = await until('the failed attempt', async () => {
        const page = await deliveriesOf(webhookId);
        const newest = page.data[0];
        return page.data.length === 2 && newest?.attempts === 1 ? newest : undefined;
      });
      expect(failing).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'HTTP 500: receiver down',
        nextAttemptAt: isoDate,
        deliveredAt: null,
      });

      const first = await deliveriesOf(webhookId, '?limit=1');
      expect(first.data.map((delivery) => delivery.id)).toEqual([failing.id]);
      expect(first.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
      const second = await deliveriesOf(webhookId, '?limit=1&page=2');
      expect(second.data.map((delivery) => delivery.id)).toEqual([firstDelivery.id]);
      const delivered = await deliveriesOf(webhookId, '?status=delivered');
      expect(delivered.data.map((delivery) => delivery.id)).toEqual([firstDelivery.id]);
      expect(delivered.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
      const pending = await deliveriesOf(webhookId, '?status=pending');
      expect(pending.data.map((delivery) => delivery.id)).toEqual([failing.id]);
      expect((await deliveriesOf(webhookId, '?status=failed')).data).toEqual([]);
    });

    it('retries a delivery now with the same event id: 202, then delivered', async () => {
      const [pending] = (await deliveriesOf(webhookId, '?status=pending')).data;
      if (!pending) throw new Error('no pending delivery (the previous test makes it)');
      const seen = receiver.received.length;
      const response = await call(
        'POST',
        `/integrations/webhooks/${webhookId}/deliveries/${pending.id}/retry`,
        b.admin,
      );
      expect(response.statusCode).toBe(202);
      expect(response.json()).toMatchObject({
        id: pending.id,
        integrationId: webhookId,
        eventId: pending.eventId,
        status: 'pending',
        attempts: 1,
        nextAttemptAt: isoDate,
      });
      const done = await until('the retried delivery', async () => {
        const page = await deliveriesOf(webhookId, '?status=delivered');
        return page.data.find((delivery) => delivery.id === pending.id);
      });
      expect(done).toMatchObject({
        attempts: 2,
        lastStatusCode: 200,
        lastError: null,
        eventId: pending.eventId,
      });
      const resent = receiver.received.slice(seen).filter((request) => request.path === '/deliveries');
      expect(resent.map((request) => (request.json as { id: string }).id)).toEqual([pending.eventId]);

      // A delivered one may be sent again too.
      const again = await call(
        'POST',
        `/integrations/webhooks/${webhookId}/deliveries/${firstDelivery.id}/retry`,
        b.owner,
      );
      expect(again.statusCode).toBe(202);
      expect(again.json()).toMatchObject({ id: firstDelivery.id, status: 'pending', attempts: 1 });
      await until('the second delivery of the first event', async () => {
        const page = await deliveriesOf(webhookId, '?status=delivered');
        return page.data.find((delivery) => delivery.id === firstDelivery.id && delivery.attempts === 2);
      });
    });

    it("answers 404 for another webhook's delivery, even in the same organization", async () => {
      const other = await call('POST', '/integrations/webhooks', b.admin, {
        organizationId: b.organizationId,
        url: `${receiver.url}/other`,
        events: ['clip.created'],
      });
      expect(other.statusCode).toBe(201);
      const response = await call(
        'POST',
        `/integrations/webhooks/${other.json().id}/deliveries/${firstDelivery.id}/retry`,
        b.admin,
      );
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      expect((await deliveriesOf(other.json().id)).data).toEqual([]);
    });

    it('refuses to retry while the webhook is disabled (400 INTEGRATION_DISABLED), and queues nothing while paused', async () => {
      const before = await deliveriesOf(webhookId);
      const paused = await call('PATCH', `/integrations/webhooks/${webhookId}`, b.admin, { enabled: false });
      expect(paused.statusCode).toBe(200);
      const response = await call(
        'POST',
        `/integrations/webhooks/${webhookId}/deliveries/${firstDelivery.id}/retry`,
        b.admin,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(errorBody('INTEGRATION_DISABLED'));
      // The outbox row is written with the video, so its absence is known when POST /videos answers.
      await createVideo(b.owner, b.organizationId, 'While paused');
      expect(await deliveriesOf(webhookId)).toEqual(before);

      const resumed = await call('PATCH', `/integrations/webhooks/${webhookId}`, b.admin, { enabled: true });
      expect(resumed.statusCode).toBe(200);
      const retried = await call(
        'POST',
        `/integrations/webhooks/${webhookId}/deliveries/${firstDelivery.id}/retry`,
        b.admin,
      );
      expect(retried.statusCode).toBe(202);
      await until('the redelivery after re-enabling', async () => {
        const page = await deliveriesOf(webhookId, '?status=delivered');
        return page.data.find((delivery) => delivery.id === firstDelivery.id && delivery.attempts === 3);
      });
    });

    it("deleting a webhook removes its deliveries, and another organization's webhook is out of reach", async () => {
      const owner = await signUpUser(ctx().app);
      const created = await call('POST', '/integrations/webhooks', owner, {
        organizationId: owner.organizationId,
        url: `${receiver.url}/removed`,
        events: ['video.created'],
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id;
      await createVideo(owner, owner.organizationId, 'Soon without a webhook');
      const [delivery] = (await call('GET', `/integrations/webhooks/${id}/deliveries`, owner)).json().data;
      expect(delivery).toMatchObject({ integrationId: id, eventType: 'video.created' });
      // The team's admins do not see it.
      const foreign = await call('GET', `/integrations/webhooks/${id}/deliveries`, b.admin);
      expect(foreign.statusCode).toBe(404);
      const foreignRetry = await call(
        'POST',
        `/integrations/webhooks/${id}/deliveries/${delivery.id}/retry`,
        b.owner,
      );
      expect(foreignRetry.statusCode).toBe(404);

      const removed = await call('DELETE', `/integrations/webhooks/${id}`, owner);
      expect(removed.json()).toEqual({ id, deleted: true });
      const { rows } = await ctx().database.pool.query(
        'SELECT id FROM integration_deliveries WHERE integration_id = $1',
        [id],
      );
      expect(rows).toEqual([]);
      const gone = await call('GET', `/integrations/webhooks/${id}/deliveries`, owner);
      expect(gone.statusCode).toBe(404);
    });
  });

  describe('Slack', () => {
    const slackUrl = () =>
      `https://hooks.slack.com/services/T0KHUB${randomBytes(3).toString('hex')}/B0KHUB/${randomBytes(12).toString('hex')}`;
    const secretOf = (url: string) => url.split('/').at(-1) as string;
    const masked = (url: string) => `${new URL(url).origin}/services/••••`;

    const connect = async (webhookUrl: string, events = ['comment.created', 'digest.weekly']) => {
      const response = await call('POST', '/integrations/slack', b.admin, {
        organizationId: b.organizationId,
        webhookUrl,
        events,
      });
      expect(response.statusCode, response.body).toBe(201);
      return response;
    };

    it('connects a channel: 201 with the URL masked, and the full URL in no answer', async () => {
      const url = slackUrl();
      const response = await connect(url);
      const slack = response.json();
      expect(slack).toEqual({
        id: anyId,
        organizationId: b.organizationId,
        kind: 'slack',
        url: masked(url),
        events: ['comment.created', 'digest.weekly'],
        description: null,
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdBy: b.admin.id,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expect(response.headers.location).toBe(`/integrations/slack/${slack.id}`);

      const answers = [
        response,
        await call('GET', `/integrations/slack/${slack.id}`, b.viewer),
        await call('GET', `/integrations?organizationId=${b.organizationId}`, b.member),
        await call('PATCH', `/integrations/slack/${slack.id}`, b.admin, { description: 'Team channel' }),
        await call('GET', `/activity?organizationId=${b.organizationId}&action=integration.created`, b.owner),
        await call('GET', `/activity?organizationId=${b.organizationId}&action=integration.updated`, b.owner),
      ];
      for (const answer of answers) {
        expect(answer.statusCode).toBe(200 + (answer === response ? 1 : 0));
        expect(answer.body).not.toContain(secretOf(url));
      }
      expect(answers[1]?.json()).toEqual(slack);
      expect(answers[2]?.json().data).toContainEqual(slack);
      expect(answers[3]?.json()).toEqual({ ...slack, description: 'Team channel', updatedAt: isoDate });
      expect(answers[4]?.json().data).toContainEqual(
        expect.objectContaining({
          targetId: slack.id,
          metadata: { kind: 'slack', url: masked(url), events: ['comment.created', 'digest.weekly'] },
        }),
      );
    });

    it('masks a URL that ends with a slash too', async () => {
      const url = `${slackUrl()}/`;
      const response = await connect(url);
      expect(response.body).not.toContain(secretOf(url.slice(0, -1)));
      expect(response.json().url).toContain('••••');
      const read = await call('GET', `/integrations/slack/${response.json().id}`, b.viewer);
      expect(read.body).not.toContain(secretOf(url.slice(0, -1)));
    });

    it('keeps the Slack URL out of the database in clear, before and after it is replaced', async () => {
      const first = slackUrl();
      const slack = (await connect(first, ['video.updated'])).json();
      const second = slackUrl();
      const replaced = await call('PATCH', `/integrations/slack/${slack.id}`, b.owner, {
        webhookUrl: second,
      });
      expect(replaced.statusCode).toBe(200);
      expect(replaced.json().url).toBe(masked(second));
      expect(replaced.body).not.toContain(secretOf(second));

      const row = await storedRow(ctx(), slack.id);
      expect(row).toMatchObject({ kind: 'slack', url: null, display_url: masked(second) });
      expect(row.sealed_secret).toMatch(/^v1\./);
      for (const url of [first, second]) {
        for (const [column, value] of Object.entries(row)) {
          expect(JSON.stringify(value) ?? '', column).not.toContain(secretOf(url));
        }
        expect(await tablesHolding(ctx(), secretOf(url))).toEqual([]);
      }
    });

    it('accepts digest.weekly, and validates the URL and events naming body.webhookUrl and body.events', async () => {
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ webhookUrl: undefined }, ['body.webhookUrl']],
        [{ webhookUrl: 'ftp://hooks.slack.com/services/T0/B0/x' }, ['body.webhookUrl']],
        [{ webhookUrl: 'https://user:pw@hooks.slack.com/services/T0/B0/x' }, ['body.webhookUrl']],
        [{ events: [] }, ['body.events']],
        [{ events: ['digest.weekly', 'digest.weekly'] }, ['body.events']],
        [{ events: ['digest.daily'] }, ['body.events.0']],
        [{ description: 'd'.repeat(2001) }, ['body.description']],
      ];
      for (const [override, paths] of cases) {
        const response = await call('POST', '/integrations/slack', b.admin, {
          organizationId: b.organizationId,
          webhookUrl: slackUrl(),
          events: ['digest.weekly'],
          ...override,
        });
        expect(response.statusCode, JSON.stringify(override)).toBe(400);
        expect(response.json().code).toBe('VALIDATION_ERROR');
        expect(pathsOf(response), JSON.stringify(override)).toEqual(paths);
      }
      const digestOnly = await connect(slackUrl(), ['digest.weekly']);
      expect(digestOnly.json().events).toEqual(['digest.weekly']);
    });

    it('changes events, pauses and re-enables; an empty change (or rotateSecret) is a 400', async () => {
      const slack = (await connect(slackUrl())).json();
      const changed = await call('PATCH', `/integrations/slack/${slack.id}`, b.admin, {
        events: ['digest.weekly'],
        enabled: false,
      });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toEqual({
        ...slack,
        events: ['digest.weekly'],
        enabled: false,
        updatedAt: isoDate,
      });
      expect(changed.json()).not.toHaveProperty('secret');
      const resumed = await call('PATCH', `/integrations/slack/${slack.id}`, b.admin, { enabled: true });
      expect(resumed.json().enabled).toBe(true);
      for (const body of [{}, { rotateSecret: true }]) {
        const response = await call('PATCH', `/integrations/slack/${slack.id}`, b.admin, body);
        expect(response.statusCode).toBe(400);
        expect(response.json().details).toEqual([{ path: 'body', message: 'must change something' }]);
      }
      const badUrl = await call('PATCH', `/integrations/slack/${slack.id}`, b.admin, { webhookUrl: 'nope' });
      expect(pathsOf(badUrl)).toEqual(['body.webhookUrl']);
      expect((await call('GET', `/integrations/slack/${slack.id}`, b.admin)).json()).toEqual({
        ...resumed.json(),
      });
    });

    it('is read by members, changed by admins and owners only, and hidden from other organizations', async () => {
      const slack = (await connect(slackUrl())).json();
      for (const user of [b.member, b.viewer]) {
        expect((await call('GET', `/integrations/slack/${slack.id}`, user)).statusCode).toBe(200);
        const patch = await call('PATCH', `/integrations/slack/${slack.id}`, user, { enabled: false });
        expect(patch.statusCode).toBe(403);
        expect(patch.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
        const remove = await call('DELETE', `/integrations/slack/${slack.id}`, user);
        expect(remove.statusCode).toBe(403);
        expect(remove.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      for (const [method, payload] of [
        ['GET', undefined],
        ['PATCH', { enabled: false }],
        ['DELETE', undefined],
      ] as const) {
        const outsider = await call(method, `/integrations/slack/${slack.id}`, b.outsider, payload);
        expect(outsider.statusCode, method).toBe(404);
        expect(outsider.json()).toEqual(errorBody('NOT_FOUND'));
        const unknown = await call(method, `/integrations/slack/${UNKNOWN_ID}`, b.owner, payload);
        expect(unknown.statusCode, method).toBe(404);
      }
      for (const user of [b.member, b.viewer, b.outsider]) {
        const create = await call('POST', '/integrations/slack', user, {
          organizationId: b.organizationId,
          webhookUrl: slackUrl(),
          events: ['digest.weekly'],
        });
        expect(create.statusCode).toBe(403);
        expect(create.json()).toEqual(errorBody(user === b.outsider ? 'NOT_A_MEMBER' : 'INSUFFICIENT_ROLE'));
      }
      expect((await call('GET', `/integrations/slack/${slack.id}`, b.owner)).json()).toEqual(slack);
    });

    it('disconnects: 200 {id, deleted}, then 404, and integration.deleted is recorded', async () => {
      const url = slackUrl();
      const slack = (await connect(url)).json();
      const response = await call('DELETE', `/integrations/slack/${slack.id}`, b.owner);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: slack.id, deleted: true });
      expect((await call('GET', `/integrations/slack/${slack.id}`, b.owner)).statusCode).toBe(404);
      expect((await call('DELETE', `/integrations/slack/${slack.id}`, b.owner)).statusCode).toBe(404);
      const activity = await call(
        'GET',
        `/activity?organizationId=${b.organizationId}&action=integration.deleted`,
        b.viewer,
      );
      expect(activity.json().data).toContainEqual(
        expect.objectContaining({
          actorId: b.owner.id,
          targetId: slack.id,
          metadata: { kind: 'slack', url: masked(url) },
        }),
      );
      expect(activity.body).not.toContain(secretOf(url));
    });
  });
});
