import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { askedFor } from './lead-choice.ts';
import { createLocalEngine } from './local-engine.ts';
import { sourceOf } from './test-support.ts';

describe('a question that asks for something by name', () => {
  const ctx = useTestApp();

  it.each([
    ['What is the success metric for the experiment?', 'success metric'],
    ["What's the main target age of the remote?", 'main target age'],
    ['What were the instructions for the transcribers?', 'instructions'],
    ['What was the budget?', 'budget'],
    ['What did Tom say about the budget?', ''],
    ['Why is the budget late?', ''],
  ])('reads "%s" as asking for "%s"', (question, asked) => {
    expect(askedFor(question)).toBe(asked);
  });

  const experiment = (speakerSaying: string) => [
    sourceOf(1, 10, 10, [
      {
        speaker: 'Tom Becker',
        text: 'What happens to workspaces created during the experiment if we pick the losing variant?',
      },
      { speaker: 'Maya Chen', text: 'Good question, we will note it in the experiment notes.' },
    ]),
    sourceOf(2, 30, 30, [
      { speaker: 'Maya Chen', text: speakerSaying },
      { speaker: 'Priya Raman', text: 'The experiment runs for three weeks from January 22.' },
    ]),
  ];

  it('leads with the source that says what is asked for, when retrieval’s first does not say it', async () => {
    const engine = createLocalEngine(ctx().database.db);
    const result = await engine.answer({
      question: 'What is the success metric for the experiment?',
      sources: experiment('Success means more workspaces with two members after seven days.'),
    });
    expect(result.answer).toMatch(
      /^Maya Chen said: Success means more workspaces with two members after seven days\./,
    );
    expect(result.citations[0]).toMatchObject({ source: 2, start: 300 });
  });

  it('keeps retrieval’s order when the other source says too few of the words asked for', async () => {
    const engine = createLocalEngine(ctx().database.db);
    const result = await engine.answer({
      question: 'What is the main target age for the experiment?',
      sources: experiment('The main colour is the colour of the screen, and it stays yellow.'),
    });
    expect(result.citations[0]).toMatchObject({ source: 1 });
  });
});
