import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { asksWhoDid, namedSpeakers } from '../search/question-terms.ts';
import { createLocalEngine } from './local-engine.ts';
import { sourceOf } from './test-support.ts';

const people = (...names: string[]) =>
  names.map((name) => ({ name, lexemes: name.toLowerCase().split(' ') }));
const named = (question: string, speakers: ReturnType<typeof people>) =>
  namedSpeakers(question, new Set(question.toLowerCase().match(/[a-z]+/g)), speakers).map(
    (speaker) => speaker.name,
  );

describe('a question that names who said it', () => {
  const ctx = useTestApp();

  it('names a speaker by first name alone when no other speaker shares it, not by a first word', () => {
    const team = people('Sam Whitfield', 'Maya Chen', 'Will Smith');
    expect(named('What did Sam say about SAML?', team)).toEqual(['Sam Whitfield']);
    expect(named("What was Maya's view on the checklist?", team)).toEqual(['Maya Chen']);
    // "Will" opens the question: a word, not a name.
    expect(named('Will the launch slip?', team)).toEqual([]);
    // Another person's full name: "John Williamson" is not "John Griffiths".
    expect(named('Why did John Williamson disagree?', people('John Griffiths AM'))).toEqual([]);
    expect(named('What did John Griffiths say?', people('John Griffiths AM'))).toEqual(['John Griffiths AM']);
    // Two Sams: the first name does not tell which.
    expect(named('What did Sam say?', people('Sam Whitfield', 'Sam Okafor'))).toEqual([]);
    // Written in lower case it is a word, not a first name.
    expect(named('how did the sam file format work?', team)).toEqual([]);
    // Whole names, roles and letters are named as before.
    expect(named('What did the Project Manager think?', people('Project Manager', 'Marketing'))).toEqual([
      'Project Manager',
    ]);
    expect(named('What did F think?', people('Grad F', 'PhD A'))).toEqual(['Grad F']);
  });

  it('leads with what the person named said, where they say a word of the question', async () => {
    const engine = createLocalEngine(ctx().database.db);
    const question = 'What did Tom think about the batch window?';
    const result = await engine.answer({
      question,
      sources: [
        // Retrieval's best source is centred on Maya's turn, which says the words most.
        sourceOf(1, 10, 10, [
          { speaker: 'Maya Chen', text: 'Should we widen the batch window, the night batch window?' },
          { speaker: 'Daniel Okafor', text: 'The batch finished late twice this week.' },
        ]),
        sourceOf(2, 40, 40, [
          { speaker: 'Tom Becker', text: 'I would rather make the batch stop itself at a quarter to five.' },
          { speaker: 'Maya Chen', text: 'Fine, let us do that then.' },
        ]),
      ],
    });
    expect(result.answer).toMatch(/^Tom Becker thought they would rather make the batch stop itself/);
    expect(result.citations[0]).toMatchObject({ source: 2, speaker: 'Tom Becker', start: 400 });
  });

  it('reads the people a "who" question names as the ones replied to, when "who" did it', () => {
    for (const question of [
      'Who disagreed with Maya?',
      'Who has agreed with Daniel?',
      'Who is working with Tom?',
    ])
      expect(asksWhoDid(question), question).toBe(true);
    for (const question of ['Who did Maya ask?', 'Who is Sam?', 'Who will Maya hire?', 'What did Maya say?'])
      expect(asksWhoDid(question), question).toBe(false);
  });

  it('leads "Who disagreed with Maya?" with the reply to Maya, not with Maya or a mention of her', async () => {
    const engine = createLocalEngine(ctx().database.db);
    const result = await engine.answer({
      question: 'Who disagreed with Maya?',
      sources: [
        sourceOf(1, 10, 10, [
          { speaker: 'Lena Fischer', text: 'I have Maya from product with me today.' },
          { speaker: 'Sam Whitfield', text: 'Welcome, Maya.' },
        ]),
        sourceOf(2, 40, 41, [
          { speaker: 'Maya Chen', text: 'I would rather keep the date.' },
          { speaker: 'Daniel Okafor', text: 'I disagree, honestly. A split rollout confuses support.' },
        ]),
      ],
    });
    expect(result.answer).toMatch(/^Daniel Okafor said they disagreed, honestly\. /);
    expect(result.citations[0]).toMatchObject({ source: 2, speaker: 'Daniel Okafor', start: 410 });
  });
});
