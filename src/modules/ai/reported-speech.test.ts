import { describe, expect, it } from 'vitest';
import { introduced, reportedSpeech, reportingVerb, statesLabel } from './reported-speech.ts';

describe('reported speech', () => {
  it.each([
    // The speaker in the third person, the present one tense back.
    [
      "I think we'll keep the grey case, it's cheaper.",
      'They thought they would keep the grey case, it was cheaper.',
    ],
    [
      'Our budget is tight and we need a cheaper chip.',
      'Their budget was tight and they needed a cheaper chip.',
    ],
    ['I was a child when I watch a film about it.', 'They were a child when they watched a film about it.'],
    ['I am not convinced, and I am not sure.', 'They were not convinced, and they were not sure.'],
    ['It does look like a cat and it has a tail.', 'It did look like a cat and it had a tail.'],
    ["We can't ship it; I don't know why.", "They couldn't ship it; they didn't know why."],
    // Verbs left alone after an auxiliary ("could we expect" is a question's order), in an
    // infinitive ("to go"), and after "you" ("you know" holds the floor).
    ['What could we expect next week?', 'What could they expect next week?'],
    ['We have to go and see the prototype.', 'They had to go and see the prototype.'],
    ['It is small, you know.', 'It was small, you know.'],
    // A possessive is not "is", nor an acronym a pronoun.
    ['The US market is ours.', 'The US market was theirs.'],
    ["Daniel's job runs at night.", "Daniel's job runs at night."],
    // Each sentence starts with a capital after "I" became "they".
    ['Or a fruit like that. I dunno.', 'Or a fruit like that. They dunno.'],
    // "Let us" proposes and "Let me" offers: what they should or would do, not "let them".
    ['Let us keep that as a candidate for February.', 'They should keep that as a candidate for February.'],
    ["Okay, let me summarise. Let's move on.", 'Okay, they would summarise. They should move on.'],
    ['So let us decide that next week.', 'So they should decide that next week.'],
    ['Could you let me know by Friday?', 'Could you let them know by Friday?'],
    // A plan, said in the present with a time to come, is what they would do, not what they did.
    ['We meet again on Monday at ten.', 'They would meet again on Monday at ten.'],
    [
      'I send the deck tomorrow, and we decide next week.',
      'They would send the deck tomorrow, and they would decide next week.',
    ],
    ['We shipped it on Monday.', 'They shipped it on Monday.'],
    // What they think or have is no plan: "they would think" says something else.
    ['I think we fixed it on Tuesday.', 'They thought they fixed it on Tuesday.'],
    ['We need to decide by the end of the meeting.', 'They needed to decide by the end of the meeting.'],
    // After a label, what is stated keeps its tense: moved back it would read as done.
    [
      'So, decision: the batch does not start before the lock alert is live.',
      'So, decision: the batch does not start before the lock alert is live.',
    ],
    ['Decision: we run the experiment and I am in.', 'Decision: they run the experiment and they are in.'],
    [
      'Good. So, decision: it ships once the reindex has run.',
      'Good. So, decision: it ships once the reindex has run.',
    ],
    [
      'Agreed. Actions: I build the queue worker by February 6.',
      'Agreed. Actions: they build the queue worker by February 6.',
    ],
    // A label said as a sentence of its own is written as a label.
    ['Actions. I write up the findings by Friday.', 'Actions: they write up the findings by Friday.'],
    ['Fine. Actions then. I update the roadmap.', 'Actions: they update the roadmap.'],
    [
      'First finding. Of the twenty admins, fourteen closed the panel.',
      'First finding: Of the twenty admins, fourteen closed the panel.',
    ],
  ])('%s', (said, reported) => {
    expect(reportedSpeech(said)).toBe(reported);
  });

  it('keeps the tense of what goes on after a label in its turn (continuesLabel)', () => {
    expect(reportedSpeech('Lena writes the changelog text, Priya does the tooltip.', 'Maya Chen', true)).toBe(
      'Lena writes the changelog text, Priya does the tooltip.',
    );
    expect(reportedSpeech('Lena writes the changelog text, Priya does the tooltip.', 'Maya Chen')).toBe(
      'Lena writes the changelog text, Priya did the tooltip.',
    );
    expect(reportedSpeech('That is mine, due January 21.', 'Tom Becker', true)).toBe(
      "That is Tom Becker's, due January 21.",
    );
  });

  it('names the speaker beside someone else ("Priya and I"), where "they" would name no one', () => {
    expect(reportedSpeech('Priya and I, together, on March 9.', 'Maya Chen')).toBe(
      'Priya and Maya Chen, together, on March 9.',
    );
    expect(reportedSpeech('Tom and me will read them.', 'Maya Chen')).toBe(
      'Tom and Maya Chen would read them.',
    );
    expect(reportedSpeech('Priya and I, together.')).toBe('Priya and they, together.');
    expect(reportedSpeech('Bhaskara and I was talking about this.', 'Professor B')).toBe(
      'Bhaskara and Professor B were talking about this.',
    );
  });

  it('writes "mine" as the speaker\'s, so that it cannot read as someone else\'s', () => {
    expect(reportedSpeech('That is mine, due January 21.', 'Tom Becker')).toBe(
      "That was Tom Becker's, due January 21.",
    );
    expect(reportedSpeech('That is mine, due January 21.')).toBe('That was theirs, due January 21.');
    expect(reportedSpeech('I take it, it is mine and my job.', 'Tom Becker')).toBe(
      "They took it, it was Tom Becker's and their job.",
    );
  });

  it('writes once two of the speaker\'s pronouns said one after the other ("we I")', () => {
    expect(reportedSpeech('So, obviously we I just did a run down the evaluation.')).toBe(
      'So, obviously they just did a run down the evaluation.',
    );
    expect(reportedSpeech('They they built it.')).toBe('They built it.');
  });

  it.each([
    ['What did Marketing think about the case?', 'thought'],
    ["What was the Professor's opinion on tapes?", 'thought'],
    ['What did the designer suggest for the buttons?', 'suggested'],
    ['Why did search go down on January 14?', 'said'],
  ])('reports "%s" with "%s"', (question, verb) => {
    expect(reportingVerb(question)).toBe(verb);
  });
});

describe('introduced', () => {
  it.each([
    // Who said it, without the words that only open a turn.
    ['Marketing', 'thought', 'So, the case was too dear.', 'Marketing thought the case was too dear.'],
    [
      'Maya Chen',
      'said',
      'Yeah. Daniel prepares the batch job.',
      'Maya Chen said Daniel prepares the batch job.',
    ],
    ['Bob', 'said', 'Marketing wants a draft by Friday.', 'Bob said Marketing wants a draft by Friday.'],
    ['PhD B', 'said', 'FPGA boards were cheaper.', 'PhD B said FPGA boards were cheaper.'],
    // A sentence that opens with its own label is reported after a colon.
    [
      'Daniel Okafor',
      'said',
      'Root cause, then: a migration rebuilt an index.',
      'Daniel Okafor said: Root cause, then: a migration rebuilt an index.',
    ],
    [
      'Maya Chen',
      'said',
      'Good. So, decision: search v2 ships on January 30.',
      'Maya Chen said: Decision: search v2 ships on January 30.',
    ],
    // "thought" is not said twice; a "that" after it may be what they thought about, and stays.
    [
      'Grad H',
      'thought',
      'They thought XML was the right format.',
      'Grad H thought XML was the right format.',
    ],
    [
      'Project Manager',
      'said',
      'They thought that was up to the designer.',
      'Project Manager thought that was up to the designer.',
    ],
    // "But" opens what goes against something the answer does not quote.
    [
      'Grad C',
      'said',
      'But what was confusing them was the Bayes-net.',
      'Grad C said what was confusing them was the Bayes-net.',
    ],
    // A question is asked, and what opens with one; not a statement that ends with one.
    ['Marketing', 'said', 'Was the case too dear?', 'Marketing asked: Was the case too dear?'],
    [
      'Suzy Davies AM',
      'thought',
      'were there other Members who wish to speak? Janet Finch-Saunders.',
      'Suzy Davies AM asked: Were there other Members who wish to speak? Janet Finch-Saunders.',
    ],
    ['Marketing', 'said', 'It was dear. Or was it?', 'Marketing said it was dear. Or was it?'],
    // "Asked" says it is a question: its label goes.
    [
      'Tom Becker',
      'said',
      'Open question from them: what happens to workspaces if they pick the losing variant? Do they switch?',
      'Tom Becker asked: What happens to workspaces if they pick the losing variant? Do they switch?',
    ],
    [
      'Aisha Mensah',
      'said',
      'Another open question: should the night batch wait?',
      'Aisha Mensah asked: Should the night batch wait?',
    ],
    [
      'Tom Becker',
      'said',
      'Open question they would like on the list: do they need a maintenance window?',
      'Tom Becker asked: Do they need a maintenance window?',
    ],
    // A question about a question keeps its words.
    [
      'Lena Fischer',
      'said',
      'Is that question still open?',
      'Lena Fischer asked: Is that question still open?',
    ],
    // An assent the rest answers with stays: "by January 19" alone does not say who agreed.
    [
      'Aisha Mensah',
      'said',
      'Agreed. Actions: they build the queue worker by February 6.',
      'Aisha Mensah said: Actions: they build the queue worker by February 6.',
    ],
    ['Aisha Mensah', 'said', 'Yes, by January 19.', 'Aisha Mensah said yes, by January 19.'],
    ['Aisha Mensah', 'said', 'Sure. By January 19.', 'Aisha Mensah said sure, by January 19.'],
    ['Aisha Mensah', 'said', 'Sure. I will do it.', 'Aisha Mensah said I will do it.'],
    ['Lena Fischer', 'thought', 'Yes, by Friday the ninth.', 'Lena Fischer said yes, by Friday the ninth.'],
    [
      'Lena Fischer',
      'thought',
      'Nobody has asked to record offline.',
      'Lena Fischer thought nobody has asked to record offline.',
    ],
  ])('%s %s: %s', (speaker, verb, sentence, reported) => {
    expect(introduced(speaker, verb, sentence)).toBe(reported);
  });

  it('writes a first word in lower case when the sources write it so elsewhere, keeping names', () => {
    const lowerCase = (word: string) => ['search', 'feedback'].includes(word);
    expect(introduced('Maya Chen', 'said', 'Search v2 moves to February 13.', { lowerCase })).toBe(
      'Maya Chen said search v2 moves to February 13.',
    );
    expect(introduced('Maya Chen', 'said', 'Northwind renews in March.', { lowerCase })).toBe(
      'Maya Chen said Northwind renews in March.',
    );
    expect(introduced('Maya Chen', 'said', 'Search v2 moves to February 13.')).toBe(
      'Maya Chen said Search v2 moves to February 13.',
    );
    // A lone letter is a name or an abbreviation, whatever the sources write.
    expect(introduced('PhD B', 'said', 'D. That was the one.', { lowerCase: (word) => word === 'd' })).toBe(
      'PhD B said D. That was the one.',
    );
  });

  it('says a label, whatever the question asked someone to think', () => {
    expect(introduced('Daniel Okafor', 'thought', 'Decision, then: they move to the job queue.')).toBe(
      'Daniel Okafor said: Decision, then: they move to the job queue.',
    );
  });

  it('reads a colon after a clause as no label: what follows is reported as said', () => {
    const said = "But you're right: it does make it more challenging.";
    expect(introduced('Kirsty Williams AM', 'thought', reportedSpeech(said))).toBe(
      'Kirsty Williams AM thought you were right: it did make it more challenging.',
    );
    expect(statesLabel(said)).toBe(false);
    expect(statesLabel('Open question from me: what happens to the workspaces?')).toBe(true);
  });

  it('keeps the word that says where the speaker stands before a qualification', () => {
    expect(introduced('Priya Raman', 'said', 'Agreed, but keep it short.')).toBe(
      'Priya Raman said: Agreed, but keep it short.',
    );
    expect(introduced('Priya Raman', 'thought', 'Yeah, okay, but not this week.')).toBe(
      'Priya Raman said: Okay, but not this week.',
    );
    expect(introduced('Priya Raman', 'said', 'Agreed, the date holds.')).toBe(
      'Priya Raman said the date holds.',
    );
    // "Sure." is a sentence of its own, and says nothing; nor does "But" left opening the rest.
    expect(introduced('PhD C', 'said', 'Sure. But they had to decide.')).toBe(
      'PhD C said they had to decide.',
    );
  });

  it('opens with a colon a capital that is no name, and reads on after a name', () => {
    const isName = (word: string) => ['Northwind', 'Daniel'].includes(word);
    expect(introduced('Maya Chen', 'said', 'Noted as open.', { isName })).toBe(
      'Maya Chen said: Noted as open.',
    );
    expect(introduced('Maya Chen', 'suggested', 'Embedding costs too much.', { isName })).toBe(
      'Maya Chen suggested: Embedding costs too much.',
    );
    expect(introduced('Maya Chen', 'said', 'Northwind renews in March.', { isName })).toBe(
      'Maya Chen said Northwind renews in March.',
    );
    expect(introduced('Maya Chen', 'said', 'Daniel owns it.', { isName })).toBe(
      'Maya Chen said Daniel owns it.',
    );
    // Lower case first, as the sources write it; "I" and lone letters stay as they are.
    expect(
      introduced('Maya Chen', 'said', 'Search v2 ships.', { isName, lowerCase: (w) => w === 'search' }),
    ).toBe('Maya Chen said search v2 ships.');
    expect(introduced('PhD B', 'said', 'D. That was the one.', { isName })).toBe(
      'PhD B said D. That was the one.',
    );
  });
});
