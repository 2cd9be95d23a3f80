import { beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import {
  anyId,
  type Caller,
  clientOf,
  type Method,
  PUBLIC_URL,
  pathsOf,
  secretPattern,
  storedRow,
  tablesHolding,
  UNKNOWN_ID,
} from './route-test-support.ts';

/*
 * CRUD, validation, authorization and isolation of the integration routes. The deliveries
 * themselves (signatures, retries, Slack messages) are tested elsewhere.
 *
 * The test machine has no DNS: with the default config, "public" destinations are IP literals,
 * which are checked without a lookup. Nothing in the default-config app triggers an event its
 * webhooks subscribe to, so nothing is ever sent to them.
 */
describe('integration routes with the default config (public https destinations only)', () => {
  const ctx = useMailingTestApp();
  const call = clientOf(ctx);
  let a: Team;
  beforeAll(async () => {
    a = await team(ctx());
  });

  const createWebhook = (caller: Caller, body: Record<string, unknown>) =>
    call('POST', '/integrations/webhooks', caller, body);
  const webhookInput = (organizationId: string, overrides: Record<string, unknown> = {}) => ({
    organizationId,
    url: PUBLIC_URL,
    events: ['video.created', 'comment.created'],
    ...overrides,
  });
  const listOf = async (caller: Caller, path: string, organizationId: string) => {
    const response = await call('GET', `${path}?organizationId=${organizationId}`, caller);
    expect(response.statusCode).toBe(200);
    return response.json().data as Array<{ id: string; kind: string }>;
  };
  /** A webhook of the team's organization, made by the admin. */
  const teamWebhook = async (overrides: Record<string, unknown> = {}) => {
    const response = await createWebhook(a.admin, webhookInput(a.organizationId, overrides));
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; secret: string; url: string; events: string[] };
  };

  it('answers 401 without a session, on every route', async () => {
    const routes: Array<[Method, string]> = [
      ['GET', '/integrations'],
      ['GET', '/integrations/webhooks'],
      ['POST', '/integrations/webhooks'],
      ['GET', `/integrations/webhooks/${UNKNOWN_ID}`],
      ['PATCH', `/integrations/webhooks/${UNKNOWN_ID}`],
      ['DELETE', `/integrations/webhooks/${UNKNOWN_ID}`],
      ['GET', `/integrations/webhooks/${UNKNOWN_ID}/deliveries`],
      ['POST', `/integrations/webhooks/${UNKNOWN_ID}/deliveries/${UNKNOWN_ID}/retry`],
      ['POST', '/integrations/slack'],
      ['GET', `/integrations/slack/${UNKNOWN_ID}`],
      ['PATCH', `/integrations/slack/${UNKNOWN_ID}`],
      ['DELETE', `/integrations/slack/${UNKNOWN_ID}`],
    ];
    for (const [method, url] of routes) {
      const response = await call(
        method,
        url,
        null,
        method === 'POST' || method === 'PATCH' ? {} : undefined,
      );
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json(), `${method} ${url}`).toEqual(errorBody('UNAUTHORIZED'));
    }
  });

  describe('POST /integrations/webhooks', () => {
    it('adds a webhook for an admin: 201 with the signing secret, once, and a Location that reads it back', async () => {
      const response = await createWebhook(
        a.admin,
        webhookInput(a.organizationId, {
          events: ['video.created', 'invoice.paid'],
          description: '  CRM sync  ',
        }),
      );
      expect(response.statusCode).toBe(201);
      const created = response.json();
      expect(created).toEqual({
        id: anyId,
        organizationId: a.organizationId,
        kind: 'webhook',
        url: PUBLIC_URL,
        events: ['video.created', 'invoice.paid'],
        description: 'CRM sync',
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdBy: a.admin.id,
        createdAt: isoDate,
        updatedAt: isoDate,
        secret: expect.stringMatching(secretPattern),
      });
      expect(response.headers.location).toBe(`/integrations/webhooks/${created.id}`);

      const { secret, ...view } = created;
      const read = await call('GET', response.headers.location as string, a.admin);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(view);
      expect(read.body).not.toContain(secret);
      // Below admin, the URL (it may carry a token) shows its origin only.
      const masked = { ...view, url: 'https://8.8.8.8/••••' };
      expect((await call('GET', response.headers.location as string, a.viewer)).json()).toEqual(masked);
      const listed = await call('GET', `/integrations?organizationId=${a.organizationId}`, a.member);
      expect(listed.json().data).toContainEqual(masked);
      expect(listed.body).not.toContain(secret);
      expect(listed.body).not.toContain('/hooks/knowledge-hub');
    });

    it('normalises the URL and accepts an IPv6 literal on the public internet', async () => {
      const response = await createWebhook(
        a.owner,
        webhookInput(a.organizationId, { url: 'HTTPS://[2606:4700:4700::1111]:8443/In?x=1' }),
      );
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({
        url: 'https://[2606:4700:4700::1111]:8443/In?x=1',
        createdBy: a.owner.id,
      });
    });

    it('is for admins and owners: members and viewers get 403 INSUFFICIENT_ROLE, outsiders 403 NOT_A_MEMBER, and nothing is added', async () => {
      const before = await listOf(a.owner, '/integrations', a.organizationId);
      for (const user of [a.member, a.viewer]) {
        const response = await createWebhook(user, webhookInput(a.organizationId));
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      const outsider = await createWebhook(a.outsider, webhookInput(a.organizationId));
      expect(outsider.statusCode).toBe(403);
      expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER'));
      const unknown = await createWebhook(a.owner, webhookInput(UNKNOWN_ID));
      expect(unknown.statusCode).toBe(403);
      expect(unknown.json()).toEqual(errorBody('NOT_A_MEMBER'));
      expect(await listOf(a.owner, '/integrations', a.organizationId)).toEqual(before);
    });

    const invalid: Array<[string, Record<string, unknown>, string[], string?]> = [
      ['a URL that is not one', { url: 'not a url' }, ['body.url'], 'must be an http(s) URL'],
      ['an ftp:// URL', { url: 'ftp://8.8.8.8/hooks' }, ['body.url'], 'must be an http(s) URL'],
      ['a URL over 2048 characters', { url: `${PUBLIC_URL}/${'a'.repeat(2048)}` }, ['body.url']],
      ['no events', { events: [] }, ['body.events'], 'must name at least one event'],
      ['an unknown event', { events: ['video.created', 'video.exploded'] }, ['body.events.1']],
      [
        'a repeated event',
        { events: ['video.created', 'video.created'] },
        ['body.events'],
        'must not repeat an event',
      ],
      [
        'digest.weekly',
        { events: ['video.created', 'digest.weekly'] },
        ['body.events'],
        'digest.weekly is for Slack only',
      ],
      ['a description over 2000 characters', { description: 'd'.repeat(2001) }, ['body.description']],
      [
        'a user name and password in the URL',
        { url: 'https://user:password@8.8.8.8/hooks' },
        ['body.url'],
        'must not contain a user name or password',
      ],
      ['a malformed organization id', { organizationId: 'nope' }, ['body.organizationId']],
      ['missing fields', { url: undefined, events: undefined }, ['body.events', 'body.url']],
    ];
    it.each(invalid)(
      'refuses %s with 400 VALIDATION_ERROR naming the field',
      async (_, override, paths, message) => {
        const owner = await signUpUser(ctx().app);
        const response = await createWebhook(owner, webhookInput(owner.organizationId, override));
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
        expect(pathsOf(response).sort()).toEqual(paths);
        if (message) {
          for (const detail of response.json().details) expect(detail.message).toBe(message);
        }
        expect(await listOf(owner, '/integrations', owner.organizationId)).toEqual([]);
      },
    );

    it('refuses http:// URLs: "must be an https URL"', async () => {
      const owner = await signUpUser(ctx().app);
      for (const url of ['http://8.8.8.8/hooks', 'http://127.0.0.1:8080/hooks']) {
        const response = await createWebhook(owner, webhookInput(owner.organizationId, { url }));
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toEqual({
          ...errorBody('VALIDATION_ERROR'),
          details: [{ path: 'body.url', message: 'must be an https URL' }],
        });
      }
      expect(await listOf(owner, '/integrations', owner.organizationId)).toEqual([]);
    });

    const privateUrls = [
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://[::1]/hooks',
      'https://10.0.0.1/hooks',
      'https://192.168.1.1/hooks',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://172.16.0.1/hooks',
      'https://100.64.0.1/hooks',
      'https://0.0.0.0/hooks',
      'https://2130706433/hooks',
      'https://[fd00::1]/hooks',
    ];
    it.each(privateUrls)('refuses the non-public destination %s with 400 naming body.url', async (url) => {
      const owner = await signUpUser(ctx().app);
      const response = await createWebhook(owner, webhookInput(owner.organizationId, { url }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        ...errorBody('VALIDATION_ERROR'),
        details: [
          {
            path: 'body.url',
            message: expect.stringContaining('must be a host that resolves to public addresses only'),
          },
        ],
      });
      expect(await listOf(owner, '/integrations', owner.organizationId)).toEqual([]);
    });

    it('refuses a host that does not resolve, with the answer a private one gets (no DNS oracle)', async () => {
      const response = await createWebhook(
        a.admin,
        webhookInput(a.organizationId, { url: 'https://no-such-host.invalid/hooks' }),
      );
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toEqual([
        {
          path: 'body.url',
          message:
            'must be a host that resolves to public addresses only (private, loopback and link-local ones are refused unless WEBHOOKS_ALLOW_PRIVATE=true)',
        },
      ]);
    });

    it('allows at most 20 integrations per organization, webhooks and Slack together', async () => {
      const owner = await signUpUser(ctx().app);
      const created: string[] = [];
      for (let i = 0; i < 19; i++) {
        const response = await createWebhook(
          owner,
          webhookInput(owner.organizationId, { url: `${PUBLIC_URL}/${i}` }),
        );
        expect(response.statusCode).toBe(201);
        created.push(response.json().id);
      }
      const slack = await call('POST', '/integrations/slack', owner, {
        organizationId: owner.organizationId,
        webhookUrl: 'https://1.1.1.1/services/T0/B0/limit',
        events: ['digest.weekly'],
      });
      expect(slack.statusCode).toBe(201);

      const overWebhook = await createWebhook(owner, webhookInput(owner.organizationId));
      expect(overWebhook.statusCode).toBe(400);
      expect(overWebhook.json()).toEqual(errorBody('INTEGRATION_LIMIT_REACHED'));
      const overSlack = await call('POST', '/integrations/slack', owner, {
        organizationId: owner.organizationId,
        webhookUrl: 'https://1.1.1.1/services/T0/B0/over',
        events: ['digest.weekly'],
      });
      expect(overSlack.statusCode).toBe(400);
      expect(overSlack.json()).toEqual(errorBody('INTEGRATION_LIMIT_REACHED'));
      expect(await listOf(owner, '/integrations', owner.organizationId)).toHaveLength(20);

      // Another organization is not affected, and a removal makes room again.
      const other = await createWebhook(a.owner, webhookInput(a.organizationId));
      expect(other.statusCode).toBe(201);
      const removed = await call('DELETE', `/integrations/webhooks/${created[0]}`, owner);
      expect(removed.statusCode).toBe(200);
      expect((await createWebhook(owner, webhookInput(owner.organizationId))).statusCode).toBe(201);
      expect(await listOf(owner, '/integrations', owner.organizationId)).toHaveLength(20);
    });

    it('holds the limit when creations race', async () => {
      const owner = await signUpUser(ctx().app);
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          createWebhook(owner, webhookInput(owner.organizationId, { url: `${PUBLIC_URL}/race/${i}` })),
        ),
      );
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(20);
      for (const response of responses.filter((each) => each.statusCode !== 201)) {
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(errorBody('INTEGRATION_LIMIT_REACHED'));
      }
      expect(await listOf(owner, '/integrations', owner.organizationId)).toHaveLength(20);
    });
  });

  describe('GET /integrations and /integrations/webhooks', () => {
    it('lists webhooks and Slack integrations oldest first to any member; /webhooks only the webhooks', async () => {
      const owner = await signUpUser(ctx().app);
      const first = await createWebhook(
        owner,
        webhookInput(owner.organizationId, { url: `${PUBLIC_URL}/1` }),
      );
      const slack = await call('POST', '/integrations/slack', owner, {
        organizationId: owner.organizationId,
        webhookUrl: 'https://1.1.1.1/services/T0/B0/listed',
        events: ['video.created', 'digest.weekly'],
      });
      const second = await createWebhook(
        owner,
        webhookInput(owner.organizationId, { url: `${PUBLIC_URL}/2` }),
      );
      const views = [first, slack, second].map((response) => {
        expect(response.statusCode).toBe(201);
        const { secret: _, ...view } = response.json();
        return view;
      });

      const all = await call('GET', `/integrations?organizationId=${owner.organizationId}`, owner);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual({ data: views });
      expect(views[1]).toMatchObject({ kind: 'slack', url: 'https://1.1.1.1/services/••••' });
      const webhooks = await call(
        'GET',
        `/integrations/webhooks?organizationId=${owner.organizationId}`,
        owner,
      );
      expect(webhooks.statusCode).toBe(200);
      expect(webhooks.json()).toEqual({ data: [views[0], views[2]] });
      // Without organizationId: the caller's default organization.
      expect((await call('GET', '/integrations', owner)).json()).toEqual({ data: views });
      expect((await call('GET', '/integrations/webhooks', owner)).json()).toEqual({
        data: [views[0], views[2]],
      });
    });

    it("lets viewers read; defaults to the caller's own organization; refuses outsiders and malformed ids", async () => {
      const webhook = await teamWebhook();
      for (const path of ['/integrations', '/integrations/webhooks']) {
        const viewer = await listOf(a.viewer, path, a.organizationId);
        expect(viewer.map((each) => each.id)).toContain(webhook.id);
        // The admin's default organization is their own, where nothing is connected.
        const own = await call('GET', path, a.admin);
        expect(own.statusCode).toBe(200);
        expect(own.json()).toEqual({ data: [] });
        const outsider = await call('GET', `${path}?organizationId=${a.organizationId}`, a.outsider);
        expect(outsider.statusCode).toBe(403);
        expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER'));
        const malformed = await call('GET', `${path}?organizationId=nope`, a.owner);
        expect(malformed.statusCode).toBe(400);
        expect(malformed.json().details).toEqual([
          { path: 'querystring.organizationId', message: 'must be a UUID' },
        ]);
      }
    });
  });

  describe('GET /integrations/webhooks/{id}', () => {
    it('shows a webhook to every member, and answers 404 for other organizations, unknown and malformed ids', async () => {
      const webhook = await teamWebhook({ description: 'read me' });
      const { secret: _, ...view } = webhook;
      for (const user of [a.owner, a.admin, a.member, a.viewer]) {
        const response = await call('GET', `/integrations/webhooks/${webhook.id}`, user);
        expect(response.statusCode).toBe(200);
        const admin = user === a.owner || user === a.admin;
        expect(response.json()).toEqual(admin ? view : { ...view, url: `${new URL(view.url).origin}/••••` });
      }
      const notFound: Array<[Caller, string]> = [
        [a.outsider, `/integrations/webhooks/${webhook.id}`],
        [a.owner, `/integrations/webhooks/${UNKNOWN_ID}`],
        [a.owner, '/integrations/webhooks/nope'],
        [a.owner, `/integrations/slack/${webhook.id}`],
      ];
      for (const [user, url] of notFound) {
        const response = await call('GET', url, user);
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
    });

    it("answers 404 for a Slack integration's id on the webhook path", async () => {
      const slack = await call('POST', '/integrations/slack', a.admin, {
        organizationId: a.organizationId,
        webhookUrl: 'https://1.1.1.1/services/T0/B0/kind',
        events: ['digest.weekly'],
      });
      expect(slack.statusCode).toBe(201);
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = await call(
          method,
          `/integrations/webhooks/${slack.json().id}`,
          a.owner,
          method === 'PATCH' ? { description: 'x' } : undefined,
        );
        expect(response.statusCode, method).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
      const deliveries = await call('GET', `/integrations/webhooks/${slack.json().id}/deliveries`, a.owner);
      expect(deliveries.statusCode).toBe(404);
      const read = await call('GET', `/integrations/slack/${slack.json().id}`, a.viewer);
      expect(read.json()).toMatchObject({ id: slack.json().id, description: null, enabled: true });
    });
  });

  describe('PATCH /integrations/webhooks/{id}', () => {
    it('changes the URL, events and description for an admin, and the change is what GET shows', async () => {
      const webhook = await teamWebhook({ description: 'before' });
      const response = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, {
        url: 'https://1.1.1.1/v2/hooks',
        events: ['comment.created', 'clip.created', 'member.joined'],
        description: 'after',
      });
      expect(response.statusCode).toBe(200);
      const changed = response.json();
      expect(changed).toEqual({
        id: webhook.id,
        organizationId: a.organizationId,
        kind: 'webhook',
        url: 'https://1.1.1.1/v2/hooks',
        events: ['comment.created', 'clip.created', 'member.joined'],
        description: 'after',
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdBy: a.admin.id,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(changed.createdAt));
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.admin)).json()).toEqual(changed);

      const cleared = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.owner, {
        description: null,
      });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json()).toEqual({ ...changed, description: null, updatedAt: isoDate });
      const blank = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.owner, {
        description: '   ',
      });
      expect(blank.json().description).toBeNull();
    });

    it('pauses and re-enables a webhook', async () => {
      const webhook = await teamWebhook();
      const paused = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, { enabled: false });
      expect(paused.statusCode).toBe(200);
      expect(paused.json()).toMatchObject({ id: webhook.id, enabled: false, disabledReason: null });
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.viewer)).json().enabled).toBe(
        false,
      );
      const resumed = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, { enabled: true });
      expect(resumed.statusCode).toBe(200);
      expect(resumed.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    });

    it('re-enabling a webhook the service disabled clears the reason and the failure run', async () => {
      const webhook = await teamWebhook();
      await ctx().database.pool.query(
        `UPDATE integrations SET enabled = false, disabled_reason = 'Disabled after failing', failing_since = now() - interval '4 days'
          WHERE id = $1`,
        [webhook.id],
      );
      const disabled = (await call('GET', `/integrations/webhooks/${webhook.id}`, a.viewer)).json();
      expect(disabled).toMatchObject({
        enabled: false,
        disabledReason: 'Disabled after failing',
        failingSince: isoDate,
      });
      // Another change leaves it disabled, with its reason.
      const described = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, {
        description: 'x',
      });
      expect(described.json()).toMatchObject({ enabled: false, disabledReason: 'Disabled after failing' });
      const resumed = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, { enabled: true });
      expect(resumed.statusCode).toBe(200);
      expect(resumed.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
      const { rows } = await ctx().database.pool.query(
        'SELECT enabled, disabled_reason, failing_since FROM integrations WHERE id = $1',
        [webhook.id],
      );
      expect(rows).toEqual([{ enabled: true, disabled_reason: null, failing_since: null }]);
    });

    it('rotates the secret: the answer has a new one, once, and the stored one changes', async () => {
      const webhook = await teamWebhook();
      const sealedBefore = (await storedRow(ctx(), webhook.id)).sealed_secret;
      const response = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, {
        rotateSecret: true,
      });
      expect(response.statusCode).toBe(200);
      const rotated = response.json();
      expect(rotated.secret).toMatch(secretPattern);
      expect(rotated.secret).not.toBe(webhook.secret);
      expect(rotated).toMatchObject({ id: webhook.id, url: webhook.url, events: webhook.events });
      expect((await storedRow(ctx(), webhook.id)).sealed_secret).not.toBe(sealedBefore);

      // Without rotateSecret (or with it false) there is no secret in the answer.
      const plain = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, {
        description: 'no secret here',
        rotateSecret: false,
      });
      expect(plain.statusCode).toBe(200);
      expect(plain.json()).not.toHaveProperty('secret');
      expect(plain.body).not.toContain(rotated.secret);
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.admin)).json()).not.toHaveProperty(
        'secret',
      );
    });

    it('refuses an empty change and invalid fields with 400, and leaves the webhook as it was', async () => {
      const webhook = await teamWebhook();
      const { secret: _, ...view } = webhook;
      const empty = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, {});
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toEqual({
        ...errorBody('VALIDATION_ERROR'),
        details: [{ path: 'body', message: 'must change something' }],
      });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ url: 'ftp://8.8.8.8/x' }, 'body.url'],
        [{ url: 'http://8.8.8.8/x' }, 'body.url'],
        [{ url: 'https://10.0.0.1/x' }, 'body.url'],
        [{ url: 'https://u:p@8.8.8.8/x' }, 'body.url'],
        [{ events: [] }, 'body.events'],
        [{ events: ['digest.weekly'] }, 'body.events'],
        [{ events: ['clip.created', 'clip.created'] }, 'body.events'],
        [{ description: 'd'.repeat(2001) }, 'body.description'],
        [{ enabled: 'yes' }, 'body.enabled'],
      ];
      for (const [body, path] of cases) {
        const response = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().code).toBe('VALIDATION_ERROR');
        expect(pathsOf(response), JSON.stringify(body)).toEqual([path]);
      }
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.admin)).json()).toEqual(view);
    });

    it('is for admins and owners: members and viewers get 403, outsiders and unknown ids 404, nothing changes', async () => {
      const webhook = await teamWebhook();
      const { secret: _, ...view } = webhook;
      for (const user of [a.member, a.viewer]) {
        const response = await call('PATCH', `/integrations/webhooks/${webhook.id}`, user, {
          enabled: false,
        });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      const notFound: Array<[Caller, string]> = [
        [a.outsider, webhook.id],
        [a.owner, UNKNOWN_ID],
        [a.owner, 'nope'],
      ];
      for (const [user, id] of notFound) {
        const response = await call('PATCH', `/integrations/webhooks/${id}`, user, { rotateSecret: true });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
        expect(response.body).not.toContain('whsec_');
      }
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.owner)).json()).toEqual(view);
    });

    it('settles who may change it before looking at the new URL (a private one is not the answer)', async () => {
      const webhook = await teamWebhook();
      const member = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.member, {
        url: 'https://10.0.0.1/',
      });
      expect(member.statusCode).toBe(403);
      expect(member.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      for (const id of [webhook.id, UNKNOWN_ID]) {
        const outsider = await call('PATCH', `/integrations/webhooks/${id}`, a.outsider, {
          url: 'https://10.0.0.1/',
        });
        expect(outsider.statusCode).toBe(404);
      }
      const created = await createWebhook(a.member, {
        ...webhookInput(a.organizationId),
        url: 'https://10.0.0.1/',
      });
      expect(created.statusCode).toBe(403);
      expect(created.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
    });

    it('does not count rotateSecret: false as a change', async () => {
      const webhook = await teamWebhook();
      const response = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.owner, {
        rotateSecret: false,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });

  describe('DELETE /integrations/webhooks/{id}', () => {
    it('removes a webhook for an admin: 200 {id, deleted}, then 404 everywhere', async () => {
      const webhook = await teamWebhook();
      const response = await call('DELETE', `/integrations/webhooks/${webhook.id}`, a.admin);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: webhook.id, deleted: true });
      const read = await call('GET', `/integrations/webhooks/${webhook.id}`, a.owner);
      expect(read.statusCode).toBe(404);
      expect(read.json()).toEqual(errorBody('NOT_FOUND'));
      const again = await call('DELETE', `/integrations/webhooks/${webhook.id}`, a.admin);
      expect(again.statusCode).toBe(404);
      expect((await listOf(a.owner, '/integrations', a.organizationId)).map((each) => each.id)).not.toContain(
        webhook.id,
      );
      const { rows } = await ctx().database.pool.query('SELECT id FROM integrations WHERE id = $1', [
        webhook.id,
      ]);
      expect(rows).toEqual([]);
    });

    it('is for admins and owners: members and viewers get 403, outsiders and unknown ids 404, and it stays', async () => {
      const webhook = await teamWebhook();
      for (const user of [a.member, a.viewer]) {
        const response = await call('DELETE', `/integrations/webhooks/${webhook.id}`, user);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      for (const [user, id] of [
        [a.outsider, webhook.id],
        [a.owner, UNKNOWN_ID],
        [a.owner, 'nope'],
      ] as const) {
        const response = await call('DELETE', `/integrations/webhooks/${id}`, user);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
      expect((await call('GET', `/integrations/webhooks/${webhook.id}`, a.viewer)).statusCode).toBe(200);
      const byOwner = await call('DELETE', `/integrations/webhooks/${webhook.id}`, a.owner);
      expect(byOwner.json()).toEqual({ id: webhook.id, deleted: true });
    });
  });

  describe('deliveries routes without deliveries', () => {
    it('lists an empty page to admins, refuses members (403) and hides the webhook from outsiders (404)', async () => {
      const webhook = await teamWebhook();
      const empty = await call('GET', `/integrations/webhooks/${webhook.id}/deliveries`, a.admin);
      expect(empty.statusCode).toBe(200);
      expect(empty.json()).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
      for (const user of [a.member, a.viewer]) {
        const response = await call('GET', `/integrations/webhooks/${webhook.id}/deliveries`, user);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      const outsider = await call('GET', `/integrations/webhooks/${webhook.id}/deliveries`, a.outsider);
      expect(outsider.statusCode).toBe(404);
      const unknown = await call(
        'POST',
        `/integrations/webhooks/${webhook.id}/deliveries/${UNKNOWN_ID}/retry`,
        a.admin,
      );
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual(errorBody('NOT_FOUND'));
    });
  });

  describe('activity', () => {
    const activityOf = async (action: string, targetId: string) => {
      const response = await call(
        'GET',
        `/activity?organizationId=${a.organizationId}&action=${action}&limit=100`,
        a.member,
      );
      expect(response.statusCode).toBe(200);
      return response.json().data.filter((event: { targetId: string }) => event.targetId === targetId);
    };

    it('records integration.created, integration.updated and integration.deleted, without the secret', async () => {
      const webhook = await teamWebhook({ events: ['video.created'] });
      expect(await activityOf('integration.created', webhook.id)).toEqual([
        {
          id: anyId,
          organizationId: a.organizationId,
          actorId: a.admin.id,
          actor: { id: a.admin.id, name: 'Adam Admin' },
          action: 'integration.created',
          targetType: 'integration',
          targetId: webhook.id,
          metadata: { kind: 'webhook', url: PUBLIC_URL, events: ['video.created'] },
          createdAt: isoDate,
        },
      ]);

      const rotated = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.owner, {
        enabled: false,
        rotateSecret: true,
      });
      expect(rotated.statusCode).toBe(200);
      const paused = await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.owner, {
        description: 'x',
      });
      expect(paused.statusCode).toBe(200);
      const updates = await activityOf('integration.updated', webhook.id);
      expect(updates).toHaveLength(2);
      expect(
        updates.map((event: { actorId: string; metadata: unknown }) => [event.actorId, event.metadata]),
      ).toEqual(
        expect.arrayContaining([
          [a.owner.id, { kind: 'webhook', fields: ['enabled', 'rotateSecret'] }],
          [a.owner.id, { kind: 'webhook', fields: ['description'] }],
        ]),
      );

      const deleted = await call('DELETE', `/integrations/webhooks/${webhook.id}`, a.admin);
      expect(deleted.statusCode).toBe(200);
      expect(await activityOf('integration.deleted', webhook.id)).toEqual([
        expect.objectContaining({
          actorId: a.admin.id,
          action: 'integration.deleted',
          targetType: 'integration',
          metadata: { kind: 'webhook', url: PUBLIC_URL },
        }),
      ]);

      const { rows } = await ctx().database.pool.query(
        'SELECT action FROM activity_events WHERE target_id = $1 ORDER BY created_at, action',
        [webhook.id],
      );
      expect(rows.map((row) => row.action).sort()).toEqual([
        'integration.created',
        'integration.deleted',
        'integration.updated',
        'integration.updated',
      ]);
      for (const secret of [webhook.secret, rotated.json().secret]) {
        expect(await tablesHolding(ctx(), secret)).toEqual([]);
      }
    });

    it('records nothing for a refused change', async () => {
      const webhook = await teamWebhook();
      expect(
        (await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.member, { enabled: false }))
          .statusCode,
      ).toBe(403);
      expect((await call('DELETE', `/integrations/webhooks/${webhook.id}`, a.viewer)).statusCode).toBe(403);
      expect(await activityOf('integration.updated', webhook.id)).toEqual([]);
      expect(await activityOf('integration.deleted', webhook.id)).toEqual([]);
    });
  });

  describe('secrets at rest', () => {
    it('keeps the signing secret out of every column of the integrations table, sealed, before and after rotation', async () => {
      const webhook = await teamWebhook();
      const rotated = (
        await call('PATCH', `/integrations/webhooks/${webhook.id}`, a.admin, { rotateSecret: true })
      ).json();
      const row = await storedRow(ctx(), webhook.id);
      expect(row.sealed_secret).toMatch(/^v1\./);
      for (const secret of [webhook.secret, rotated.secret]) {
        const bare = secret.slice('whsec_'.length);
        for (const [column, value] of Object.entries(row)) {
          const text = JSON.stringify(value) ?? '';
          expect(text, column).not.toContain(bare);
        }
        expect(await tablesHolding(ctx(), bare)).toEqual([]);
      }
    });
  });
});
