import { describe, expect, it } from 'vitest';
import { introduced, reportedSpeech, reportingVerb } from './reported-speech.ts';

describe('reported speech', () => {
  it('moves the speaker to the third person and the present one tense back', () => {
    expect(reportedSpeech("I think we'll keep the grey case, it's cheaper.")).toBe(
      'They thought they would keep the grey case, it was cheaper.',
    );
    expect(reportedSpeech('Our budget is tight and we need a cheaper chip.')).toBe(
      'Their budget was tight and they needed a cheaper chip.',
    );
    expect(reportedSpeech('I was a child when I watch a film about it.')).toBe(
      'They were a child when they watched a film about it.',
    );
    expect(reportedSpeech('It does look like a cat and it has a tail.')).toBe(
      'It did look like a cat and it had a tail.',
    );
    expect(reportedSpeech("We can't ship it; I don't know why.")).toBe(
      "They couldn't ship it; they didn't know why.",
    );
  });

  it('leaves verbs alone after an auxiliary, after "to" and after "you"', () => {
    // "could we expect" is a question's order; "to go" an infinitive; "you know" holds the floor.
    expect(reportedSpeech('What could we expect next week?')).toBe('What could they expect next week?');
    expect(reportedSpeech('We have to go and see the prototype.')).toBe(
      'They had to go and see the prototype.',
    );
    expect(reportedSpeech('It is small, you know.')).toBe('It was small, you know.');
    // A possessive is not "is", nor an acronym a pronoun.
    expect(reportedSpeech('The US market is ours.')).toBe('The US market was theirs.');
    expect(reportedSpeech("Daniel's job runs at night.")).toBe("Daniel's job runs at night.");
  });

  it('starts each sentence with a capital after "I" became "they"', () => {
    expect(reportedSpeech('Or a fruit like that. I dunno.')).toBe('Or a fruit like that. They dunno.');
  });

  it('takes the reporting verb from the question', () => {
    expect(reportingVerb('What did Marketing think about the case?')).toBe('thought');
    expect(reportingVerb("What was the Professor's opinion on tapes?")).toBe('thought');
    expect(reportingVerb('What did the designer suggest for the buttons?')).toBe('suggested');
    expect(reportingVerb('Why did search go down on January 14?')).toBe('said');
  });
});

describe('introduced', () => {
  it('names who said it, without the words that only open a turn', () => {
    expect(introduced('Marketing', 'thought', 'So, the case was too dear.')).toBe(
      'Marketing thought the case was too dear.',
    );
    expect(introduced('Maya Chen', 'said', 'Yeah. Daniel prepares the batch job.')).toBe(
      'Maya Chen said Daniel prepares the batch job.',
    );
    expect(introduced('Bob', 'said', 'Marketing wants a draft by Friday.')).toBe(
      'Bob said Marketing wants a draft by Friday.',
    );
    expect(introduced('PhD B', 'said', 'FPGA boards were cheaper.')).toBe(
      'PhD B said FPGA boards were cheaper.',
    );
  });

  it('reports a sentence that opens with its own label after a colon', () => {
    expect(introduced('Daniel Okafor', 'said', 'Root cause, then: a migration rebuilt an index.')).toBe(
      'Daniel Okafor said: Root cause, then: a migration rebuilt an index.',
    );
    expect(introduced('Maya Chen', 'said', 'Good. So, decision: search v2 ships on January 30.')).toBe(
      'Maya Chen said: Decision: search v2 ships on January 30.',
    );
  });

  it('does not say "thought" twice', () => {
    expect(introduced('Grad H', 'thought', 'They thought XML was the right format.')).toBe(
      'Grad H thought XML was the right format.',
    );
    // "that" may be what they thought about: it stays.
    expect(introduced('Project Manager', 'said', 'They thought that was up to the designer.')).toBe(
      'Project Manager thought that was up to the designer.',
    );
  });

  it('reports a question as asked, and only a question', () => {
    expect(introduced('Marketing', 'said', 'Was the case too dear?')).toBe(
      'Marketing asked: Was the case too dear?',
    );
    expect(introduced('Marketing', 'said', 'It was dear. Or was it?')).toBe(
      'Marketing said it was dear. Or was it?',
    );
  });
});
