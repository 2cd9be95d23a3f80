import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { postVideo, ROADMAP } from '../chat/test-support.ts';
import { AI_FEATURES } from './budget.ts';

/** Credits meter paid model calls: the local engine costs nothing, whatever the allowance. */
describe('the local engine is free', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '1' } });
  const request = requester(ctx);

  it('extracts, answers, chats, summarizes and briefs without charging a credit', async () => {
    const ana = await signUpUser(ctx().app, { name: 'Ana' });
    const videoId = await postVideo(ctx, ana, { title: 'Roadmap', transcript: ROADMAP });
    expect((await waitForKnowledge(ctx().database.db, videoId)).status).toBe('ready');
    for (let asked = 0; asked < 3; asked++) {
      const answer = await request(ana, 'POST', '/ai/qa', { question: 'When is the launch date?' });
      expect(answer.statusCode, answer.body).toBe(201);
    }
    expect(
      (await request(ana, 'POST', '/ai/chat', { message: 'Who owns the battery work?' })).statusCode,
    ).toBe(201);
    expect((await request(ana, 'GET', '/ai/insights')).statusCode).toBe(200);
    expect((await request(ana, 'GET', '/ai/summaries/daily')).statusCode).toBe(200);
    const prep = await request(ana, 'POST', '/ai/summaries/meeting-prep', { videoIds: [videoId] });
    expect(prep.statusCode, prep.body).toBe(201);

    const budget = (await request(ana, 'GET', '/ai/budget')).json();
    expect(budget).toMatchObject({ limit: 1, used: 0, remaining: 1, percentUsed: 0 });
    expect(budget.byFeature).toEqual(AI_FEATURES.map((feature) => ({ feature, credits: 0, operations: 0 })));
  });
});
