import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { meetingAdder } from '../../../test/helpers/knowledge.ts';
import { qaAsker } from '../../../test/helpers/requests.ts';

type Answer = {
  answer: string;
  answered: boolean;
  citations: Array<{ source: number; videoId: string; start: number; speaker: string | null; quote: string }>;
};

describe('POST /ai/qa: "who agreed with <name>?", "who disagreed with <name>?"', () => {
  const ctx = useTestApp();
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let planningId: string;
  let reviewId: string;

  const askAs = qaAsker<Answer>(ctx);
  const ask = (user: SignedUpUser, question: string) => askAs(user, { question });
  const meeting = meetingAdder(ctx);

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice Martin' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    planningId = await meeting(alice, 'Budget planning', '2026-02-02T09:00:00Z', [
      ['Dana Ortiz', 'We should move the launch to March so the budget covers the extra hires.'],
      ['Eli Brandt', 'I would rather keep February. The customers were promised February.'],
      ['Dana Ortiz', 'Then we cut the contractor budget instead.'],
      ['Farah Khan', 'She has a point. The contractors cost more than the hires.'],
      ['Eli Brandt', 'Fine, let us cut the contractors.'],
    ]);
    reviewId = await meeting(alice, 'Design review', '2026-02-09T09:00:00Z', [
      ['Dana Ortiz', 'The new onboarding flow needs one more round of testing.'],
      ['Eli Brandt', 'Agreed, but keep the round short.'],
      ['Dana Ortiz', 'Two days, then.'],
      // A listener's "Yeah." takes no side.
      ['Farah Khan', 'Yeah.'],
      ['Dana Ortiz', 'And I book the testers.'],
      ['Eli Brandt', 'We can ship on Thursday.'],
      ['Farah Khan', 'Thursday works for support.'],
    ]);
    // Another organization's meeting, where someone agrees with their own Dana Ortiz.
    await meeting(otto, "Otto's sync", '2026-02-10T09:00:00Z', [
      ['Dana Ortiz', 'We hire two more people.'],
      ['Otto', 'Absolutely, I agree.'],
    ]);
  });

  it('lists the replies that agree, latest meeting first, each quoted with what it answered and cited where it is said', async () => {
    const body = await ask(alice, 'Who agreed with Dana?');
    expect(body.answered).toBe(true);
    expect(body.answer).toBe(
      'Replies agreeing with Dana Ortiz, latest meeting first: ' +
        'Eli Brandt on February 9, in “Design review”, to “The new onboarding flow needs one more round of testing.”: “Agreed, but keep the round short.” [1]; ' +
        'Farah Khan on February 2, in “Budget planning”, to “Then we cut the contractor budget instead.”: “She has a point. The contractors cost more than the hires.” [2].',
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.start, citation.speaker])).toEqual([
      [reviewId, 10, 'Eli Brandt'],
      [planningId, 30, 'Farah Khan'],
    ]);
    // Another organization's reply to its own Dana Ortiz is not read.
    expect(body.answer).not.toContain('Otto');
  });

  it('lists the replies that disagree, and not those that agree or say nothing of a side', async () => {
    const body = await ask(alice, 'Who pushed back on Dana Ortiz?');
    expect(body.answer).toBe(
      'Replies disagreeing with Dana Ortiz, latest meeting first: Eli Brandt on February 2, in “Budget planning”, ' +
        'to “We should move the launch to March so the budget covers the extra hires.”: “I would rather keep February. The customers were promised February.” [1].',
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.start])).toEqual([[planningId, 10]]);
  });

  it('narrows the replies to a matter the question names', async () => {
    const body = await ask(alice, 'Who agreed with Dana about the contractors?');
    expect(body.answer).toMatch(
      /^Replies agreeing with Dana Ortiz on the contractors, latest meeting first: Farah Khan/,
    );
    expect(body.citations.map((citation) => citation.videoId)).toEqual([planningId]);
    // A matter of stop words only narrows nothing.
    const anything = await ask(alice, 'Who agreed with Dana about it?');
    expect(anything.citations.map((citation) => citation.videoId)).toEqual([reviewId, planningId]);
  });

  it('says so when no one replying to the person took that side', async () => {
    const body = await ask(alice, 'Who disagreed with Eli?');
    expect(body).toMatchObject({
      answered: true,
      answer: 'No one replying to Eli Brandt in these meetings disagreed in so many words.',
      citations: [],
    });
  });

  it('leaves a question about someone who does not speak here to retrieval', async () => {
    const body = await ask(otto, 'Who agreed with Farah?');
    expect(body.answer).not.toMatch(/^Replies|^No one replying/);
    expect(body.citations.every((citation) => citation.videoId !== planningId)).toBe(true);
  });
});
