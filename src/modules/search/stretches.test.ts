import { describe, expect, it } from 'vitest';
import { answerKind, asksQuestion, focusWordsOf, questionWeights } from './question-terms.ts';
import { rankStretches, STRETCH_DEFAULTS, turnScores } from './stretches.ts';
import { termTurnsOf } from './turns-test-support.ts';

const question = { weights: new Map([['budget', 2]]) };

describe('rankStretches', () => {
  it('centres on the turn that follows the one raising the words, when both say them alike', () => {
    const turns = termTurnsOf(['hello all', 'now the budget', 'the budget was cut', 'anything else', 'no']);
    const [best] = rankStretches(turns, question, 1);
    expect(best).toMatchObject({ bestIndex: 2, firstIndex: 0, lastIndex: 4 });
    // With the neighbours on either side weighing the same, the tie goes to the earlier turn.
    const even = { ...STRETCH_DEFAULTS, neighbourWeights: { before: [0.5, 0.25], after: [0.5, 0.25] } };
    expect(rankStretches(turns, question, 1, even)[0]?.bestIndex).toBe(1);
  });

  it('centres stretches only on turns that say a word of the question, apart from each other', () => {
    const turns = termTurnsOf(['budget', 'a', 'b', 'c', 'd', 'e', 'budget budget', 'f', 'g']);
    const stretches = rankStretches(turns, question, 5);
    expect(stretches.map((stretch) => stretch.bestIndex)).toEqual([6, 0]);
    expect(stretches.every((stretch) => stretch.coverage === 1)).toBe(true);
    expect(rankStretches(turns, { weights: new Map([['pricing', 1]]) }, 5)).toEqual([]);
  });
});

describe("cue words of a question's kind", () => {
  const weigh = (question: string, lexemes: string[]) =>
    questionWeights({ question, lexemes, framing: new Set(), speakers: [], idf: () => 1 });

  it("count only where the question's own words are said around them", () => {
    const why = weigh('Why did the queue move?', ['queue', 'move']);
    expect([...(why.cues ?? [])]).toEqual(['caus', 'reason', 'root', 'due']);
    // One meeting's root cause, far from the queue; the queue discussed elsewhere, a reason near it.
    const turns = [
      ...termTurnsOf(['root caus index', 'index lock', 'lock again']),
      ...termTurnsOf(['the queue', 'we move the queue reason load', 'ok']).map((turn) => ({
        ...turn,
        videoId: 'w',
      })),
    ];
    const ranked = rankStretches(turns, why, 5);
    expect(ranked.map((stretch) => stretch.videoId)).toEqual(['w']);
    expect(turnScores(turns, why)[0]).toBe(0);
    // Said where the queue is discussed, the same cause counts.
    expect(turnScores(termTurnsOf(['the queue', 'root caus', 'we move the queue']), why)[1]).toBeGreaterThan(
      0,
    );
  });

  it('make "long" in "how long" and "decide" light, and add the words of a duration or a decision', () => {
    const howLong = weigh('How long did the outage last?', ['long', 'outag', 'last']);
    expect(howLong.weights.get('long')).toBeLessThan(howLong.weights.get('outag') as number);
    expect(howLong.content).toEqual(['outag', 'last']);
    expect(howLong.cues?.has('minut')).toBe(true);
    // "decide" is not "decision" to the stemmer: a decision stated answers what was decided.
    const decide = weigh('What did we decide about the checklist?', ['decid', 'checklist']);
    expect(decide.weights.get('decid')).toBeLessThan(decide.weights.get('checklist') as number);
    expect(decide.cues?.has('decis')).toBe(true);
    expect(answerKind('How long did the outage last?')?.name).toBe('duration');
    expect(answerKind('Why did the outage happen?')?.name).toBe('cause');
    expect(answerKind('What was the root cause of the outage?')?.name).toBe('cause');
    expect(answerKind('What caused the outage?')?.name).toBe('cause');
    expect(answerKind('What were the reasons for the delay?')?.name).toBe('cause');
    expect(answerKind('How was the outage detected?')?.name).toBe('detection');
    expect(answerKind('How did we notice the search outage?')?.name).toBe('detection');
    expect(answerKind('How did the team find out about the lock?')?.name).toBe('detection');
    expect(answerKind('Who spotted the error?')?.name).toBe('detection');
    expect(answerKind('How do we detect a stale cache in the new design?')).toBeUndefined();
    expect(answerKind('What did we learn from the outage?')?.name).toBe('finding');
    expect(answerKind('What lessons did we learn from the search outage?')?.name).toBe('finding');
    expect(answerKind('What did Priya find in the session recordings?')?.name).toBe('finding');
    expect(answerKind('What were the findings of the design review?')?.name).toBe('finding');
    // Learning as a matter is no finding asked for.
    expect(answerKind('Why did User Interface give four in ease of learning?')?.name).toBe('cause');
    expect(answerKind('What did the group say about the easy-to-learn design?')).toBeUndefined();
    expect(answerKind('What did they say about the outage cause?')).toBeUndefined();
    expect(answerKind('What did we decide about the checklist?')?.name).toBe('decision');
    expect(answerKind('What was the conclusion about offline mode?')?.name).toBe('decision');
    expect(answerKind('What did they conclude on the checklist?')?.name).toBe('decision');
    // "Outcomes" are as often a matter ("outcomes for children") as what was decided.
    expect(answerKind('What did they say about outcomes for children?')).toBeUndefined();
    expect(answerKind('What did they discuss about the checklist?')).toBeUndefined();
    expect(answerKind('decision export')).toBeUndefined();
    expect(answerKind('What does the experiment measure?')?.name).toBe('measure');
    expect(answerKind('How will we know if the experiment worked?')?.name).toBe('measure');
    expect(answerKind('What are the success criteria for the guided setup?')?.name).toBe('measure');
    expect(answerKind('What is the success metric for the experiment?')?.name).toBe('measure');
    // Measuring as a matter, and a metric named: no measure asked for.
    expect(answerKind('What did they say about measuring the remote?')).toBeUndefined();
    expect(answerKind('What did the team know about the budget?')).toBeUndefined();
  });

  it('count the reply to someone a "who" question names as replied to, not their own turns', () => {
    const spoken = (speakers: Array<string | null>, lines: string[]) =>
      termTurnsOf(lines).map((turn, at) => ({ ...turn, speaker: speakers[at] ?? null }));
    const turns = spoken(
      ['Lena Fischer', 'Maya Chen', 'Daniel Okafor', 'Maya Chen'],
      ['maya join', 'keep date', 'disagre honest', 'disagre tag'],
    );
    const speakers = [{ name: 'Maya Chen', lexemes: ['maya', 'chen'] }];
    const weighed = (question: string) =>
      questionWeights({ question, lexemes: ['disagre', 'maya'], framing: new Set(), speakers, idf: () => 1 });
    const who = weighed('Who disagreed with Maya?');
    expect(who.repliedTo).toEqual(new Set(['maya chen']));
    expect(who.speakers).toBeUndefined();
    const scores = turnScores(turns, who);
    // Daniel's reply to Maya counts three times; Maya's own disagreement and a mention of her do not.
    expect(scores[2]).toBeGreaterThan(2 * (scores[3] as number));
    expect(scores[2]).toBeGreaterThan(2 * (scores[0] as number));
    // "What did Maya disagree with?" asks about Maya: her own turn counts more.
    const what = weighed('What did Maya disagree with?');
    expect(what.speakers).toEqual(new Set(['maya chen']));
    const asked = turnScores(turns, what);
    expect(asked[3]).toBeGreaterThan(2 * (asked[2] as number));
  });

  it('read "who owns", "who is responsible", "who will" as asking for an owner, and add no cue', () => {
    for (const question of [
      'Who owns the lock alert?',
      'Who is responsible for the night batch job?',
      "Who's in charge of the release checklist?",
      'Who will collect the offline requests?',
    ])
      expect(answerKind(question)?.name, question).toBe('owner');
    for (const question of [
      'Who suggested the job queue?',
      'Who was at the design review?',
      'owns the alert',
    ])
      expect(answerKind(question), question).toBeUndefined();
    const owns = weigh('Who is responsible for the night batch job?', ['respons', 'night', 'batch', 'job']);
    expect(owns.weights.get('respons')).toBeLessThan(owns.weights.get('batch') as number);
    expect(owns.content).toEqual(['night', 'batch', 'job']);
    expect(owns.cues?.size).toBe(0);
  });

  it('read "when…" and "the deadline for…" as asking for a day, and "open questions" as asking for questions', () => {
    for (const question of [
      'When is the changelog entry due?',
      'When did the outage start?',
      'By when do we need the legal check?',
      'What is the deadline for the help article?',
    ])
      expect(answerKind(question)?.name, question).toBe('time');
    for (const question of [
      'What are the open questions about the experiment?',
      'Any unanswered questions on SSO?',
    ])
      expect(answerKind(question)?.name, question).toBe('open question');
    for (const question of [
      'What did Lena ask about the changelog?',
      'When discussing the design, what did Marketing think of a retro phone dial?',
      'Summarize the questions screen',
      'deadline',
    ])
      expect(answerKind(question), question).toBeUndefined();
    const due = weigh('When is the changelog entry due?', ['changelog', 'entri', 'due']);
    expect(due.content).toEqual(['changelog', 'entri']);
  });
});

describe('asksQuestion', () => {
  it('tells a question typed into search from words to find', () => {
    for (const question of [
      'Why did search go down on January 14?',
      'what did the professor think about hiring Fey',
      'Summarize the discussion on the remote',
      'Describe the prototype',
      'the launch date?',
    ])
      expect(asksQuestion(question), question).toBe(true);
    for (const words of ['feature flag', '"launch date" -draft', 'whatever', 'howl OR bark'])
      expect(asksQuestion(words), words).toBe(false);
  });
});

describe('the matter a question names after "about"', () => {
  it('is read from the words after "about", "regarding" or "concerning", up to three', () => {
    expect(
      focusWordsOf('What did the group discuss about the buttons when talking about the functions?'),
    ).toBe('buttons when talking');
    expect(focusWordsOf('Summarize the discussion regarding an LCD screen.')).toBe('LCD screen');
    expect(focusWordsOf('What did Maya decide?')).toBe('');
  });

  it("weighs the question's other words half, so a turn on the matter ranks above one on the rest", () => {
    const weigh = (focus: string[]) =>
      questionWeights({
        question: 'What did the group discuss about the buttons when talking about the functions?',
        lexemes: ['button', 'function'],
        framing: new Set(),
        focus: new Set(focus),
        speakers: [],
        idf: () => 1,
      });
    const turns = termTurnsOf(['hello', 'then the button', 'and so', 'the function list', 'done']);
    const even = weigh([]);
    expect(even.weights).toEqual(
      new Map([
        ['button', 1],
        ['function', 1],
      ]),
    );
    // Alike in their words, the later turn wins by the one raising the buttons before it.
    expect(rankStretches(turns, even, 1)[0]?.bestIndex).toBe(3);
    const onButtons = weigh(['button', 'talk']);
    expect(onButtons.weights).toEqual(
      new Map([
        ['button', 1],
        ['function', 0.5],
      ]),
    );
    expect(rankStretches(turns, onButtons, 1)[0]?.bestIndex).toBe(1);
    // When the matter is all the question says, nothing changes: the words its kind adds
    // ("decision") weigh as much beside it as without it.
    const decide = (focus: string[]) =>
      questionWeights({
        question: 'What did we decide about the onboarding checklist?',
        lexemes: ['decid', 'onboard', 'checklist'],
        framing: new Set(),
        focus: new Set(focus),
        speakers: [],
        idf: () => 1,
      }).weights;
    expect(decide(['onboard', 'checklist'])).toEqual(decide([]));
    expect(decide([]).get('decis')).toBe(1);
  });
});
