import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { queueWeeklyDigests } from './digest.ts';
import { type Receiver, startReceiver } from './test-support.ts';

const TRANSCRIPT = [
  'WEBVTT',
  '',
  '00:00:00.000 --> 00:00:08.000',
  '<v Dana>We need to settle the launch plan for search v2 today.',
  '',
  '00:00:08.000 --> 00:00:16.000',
  '<v Daniel>So, decision: search v2 ships behind a feature flag on January 30.',
  '',
  '00:00:16.000 --> 00:00:24.000',
  '<v Dana>Daniel prepares the night batch job by January 23.',
  '',
].join('\n');

type SlackBody = { text: string; blocks: Array<Record<string, unknown>> };

/** Every mrkdwn text of a message, one string per block. */
const textsOf = (body: SlackBody) =>
  body.blocks.map((block) => {
    const text = block.text as { text?: string } | undefined;
    const elements = block.elements as Array<{ text: string }> | undefined;
    return text?.text ?? elements?.map((element) => element.text).join(' ') ?? '';
  });

describe('Slack', () => {
  const ctx = useTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', APP_URL: 'https://hub.example.com' } });
  let owner: SignedUpUser;
  let slack: Receiver;
  let digestOnly: Receiver;

  beforeAll(async () => {
    owner = await signUpUser(ctx().app);
    [slack, digestOnly] = await Promise.all([startReceiver(), startReceiver()]);
    for (const [receiver, events] of [
      [slack, ['video.created', 'digest.weekly']],
      [digestOnly, ['digest.weekly']],
    ] as const) {
      const connected = await ctx().app.inject({
        method: 'POST',
        url: '/integrations/slack',
        headers: owner.headers,
        payload: {
          organizationId: owner.organizationId,
          webhookUrl: `${receiver.url}/services/T000/B000/XXXXSECRET`,
          events,
        },
      });
      expect(connected.statusCode, connected.body).toBe(201);
      expect(connected.json().url).toBe(`${receiver.url}/services/••••`);
    }
  });
  afterAll(async () => {
    await slack.close();
    await digestOnly.close();
  });

  it('posts a Block Kit message for a chosen event, escaping what people typed', async () => {
    const created = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: owner.headers,
      payload: {
        organizationId: owner.organizationId,
        title: 'Launch <plan> & <!channel>',
        duration: '0:24',
        transcript: TRANSCRIPT,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const videoId = created.json().id;
    const [request] = await slack.waitFor(1);
    expect(request?.path).toBe('/services/T000/B000/XXXXSECRET');
    expect(request?.headers['x-khub-signature']).toBeUndefined();
    const line = `:movie_camera: New video: <https://hub.example.com/videos/${videoId}|Launch &lt;plan&gt; &amp; &lt;!channel&gt;>`;
    expect(request?.json).toStrictEqual({
      text: line,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: line } },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: '<https://hub.example.com|Knowledge Hub> · `video.created`' }],
        },
      ],
    });
    // Not subscribed to it: no message.
    expect(digestOnly.received).toHaveLength(0);
    await waitForKnowledge(ctx().database.db, videoId);
  });

  it('posts the weekly digest: meetings, decisions, open action items and gaps', async () => {
    const before = slack.received.length;
    expect(await queueWeeklyDigests({ db: ctx().database.db, clock: ctx().clock })).toBe(2);
    await ctx().jobs.send('integration-deliveries');
    const [request] = await digestOnly.waitFor(1);
    await slack.waitFor(before + 1);
    const body = request?.json as SlackBody;
    expect(slack.received.at(-1)?.json).toStrictEqual(body);
    expect(body.text).toMatch(
      /^Weekly digest \d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}: 1 new meeting, 1 decision, 1 open action item$/,
    );
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    const texts = textsOf(body);
    expect(texts[1]).toMatch(
      /^\*New meetings \(1\)\*\n• <https:\/\/hub\.example\.com\/videos\/[\w-]+\|Launch &lt;plan&gt;/,
    );
    expect(texts[2]).toContain('decision: search v2 ships behind a feature flag on January 30');
    expect(texts[3]).toMatch(
      /Daniel prepares the night batch job by January 23\..* — \*Daniel\* \(due \d{4}-01-23\)/,
    );
    expect(texts[4]).toMatch(/^\*Top knowledge gaps \(\d+\)\*/);
    expect(body.blocks.at(-1)).toMatchObject({ type: 'context' });
  });
});
