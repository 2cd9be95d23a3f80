import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createLocalEngine } from './local-engine.ts';
import { sourceOf } from './test-support.ts';

describe('local answer engine: a question asked in the meeting, and its reply', () => {
  const ctx = useTestApp();

  it('quotes the reply to a question it quotes, however short, and never a short turn of filler', async () => {
    const engine = createLocalEngine(ctx().database.db);
    const result = await engine.answer({
      question: 'Which identity provider does Northwind use?',
      sources: [
        sourceOf(1, 10, 10, [
          { speaker: 'Maya Chen', text: 'Which identity provider do you use at Northwind?' },
          { speaker: 'Sam Whitfield', text: 'Okta, with SAML.' },
          { speaker: 'Maya Chen', text: 'Okay.' },
        ]),
      ],
    });
    expect(result.answer).toBe(
      'Maya Chen asked: Which identity provider do you use at Northwind? Sam Whitfield said: Okta, with SAML. [1]',
    );
    // One citation, opening at the question; the reply is in the answer, the filler is not.
    expect(result.citations).toMatchObject([{ source: 1, start: 100, speaker: 'Maya Chen' }]);
    expect(result.answer).not.toMatch(/Okay/);
  });
});
