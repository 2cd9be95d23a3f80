import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { postVideo, ROADMAP } from './test-support.ts';

describe('chat and the AI budget', () => {
  // Extraction of the one meeting (2 credits), then three chat turns.
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '5', AI_METER_LOCAL: 'true' } });
  const request = requester(ctx);

  it('charges one credit per answered message and refuses with 429 once the month is spent', async () => {
    const alice = await signUpUser(ctx().app, { name: 'Alice' });
    await waitForKnowledge(
      ctx().database.db,
      await postVideo(ctx, alice, { title: 'Roadmap', transcript: ROADMAP }),
    );
    const first = await request(alice, 'POST', '/chat/conversations', {
      message: 'When is the launch date?',
    });
    expect(first.statusCode).toBe(201);
    const { id } = first.json();
    // An empty conversation costs nothing.
    expect((await request(alice, 'POST', '/chat/conversations', {})).statusCode).toBe(201);
    expect(
      (await request(alice, 'POST', `/chat/conversations/${id}/messages`, { content: 'Who agreed?' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await request(alice, 'POST', '/ai/chat', { message: 'Who owns the battery work?' })).statusCode,
    ).toBe(201);

    const refusals = [
      await request(alice, 'POST', `/chat/conversations/${id}/messages`, { content: 'And the budget?' }),
      await request(alice, 'POST', '/ai/chat', { message: 'And the budget?', conversationId: id }),
      await request(
        alice,
        'POST',
        '/ai/chat',
        { message: 'And the budget?' },
        { accept: 'text/event-stream' },
      ),
      await request(alice, 'POST', '/chat/conversations', { message: 'And the budget?' }),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toStrictEqual({
        success: false,
        error: 'The organization has used its AI credits for this month',
        code: 'AI_BUDGET_EXCEEDED',
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    const budget = (await request(alice, 'GET', '/ai/budget')).json();
    expect(budget).toMatchObject({ used: 5, remaining: 0 });
    expect(budget.byFeature).toContainEqual({ feature: 'chat', credits: 3, operations: 3 });
    // Refused turns left nothing behind: no new conversation, no new message.
    const listed = (await request(alice, 'GET', '/chat/conversations')).json();
    expect(listed.pagination.total).toBe(3);
    expect((await request(alice, 'GET', `/chat/conversations/${id}`)).json().messageCount).toBe(4);
  });
});
