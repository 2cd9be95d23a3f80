import { describe, expect, it } from 'vitest';
import { splitSentences, tidySpeech } from './sentences.ts';

describe('splitSentences', () => {
  it('cuts a turn at sentence ends and shares its time by words', () => {
    const text = 'We should make it yellow. Why not blue, then? Because yellow is the brand colour!';
    expect(splitSentences({ start: 10, end: 25, text })).toStrictEqual([
      { text: 'We should make it yellow.', words: 5, start: 10, end: 15 },
      { text: 'Why not blue, then?', words: 4, start: 15, end: 19 },
      { text: 'Because yellow is the brand colour!', words: 6, start: 19, end: 25 },
    ]);
  });

  it('joins short sentences to the next one, or to the one before at the end of a turn', () => {
    const text = 'Okay. Yeah. So the remote needs a battery. Right. Fine.';
    expect(splitSentences({ start: 0, end: 3, text })).toStrictEqual([
      { text: 'Okay. Yeah. So the remote needs a battery. Right. Fine.', words: 10, start: 0, end: 3 },
    ]);
    expect(
      splitSentences({
        start: 0,
        end: 9,
        text: 'Well. I think the price matters. Costs go up every year now.',
      }),
    ).toStrictEqual([
      { text: 'Well. I think the price matters.', words: 6, start: 0, end: 4.5 },
      { text: 'Costs go up every year now.', words: 6, start: 4.5, end: 9 },
    ]);
  });

  it('keeps the exact text (a quote must be verbatim) and rounds times to milliseconds within the turn', () => {
    const text = 'First we  look at the costs.\tThen we look at the plan, the 3.5 million budget.';
    const sentences = splitSentences({ start: 1, end: 2, text });
    expect(sentences.map((sentence) => sentence.text)).toEqual([
      'First we  look at the costs.',
      'Then we look at the plan, the 3.5 million budget.',
    ]);
    for (const sentence of sentences) expect(text).toContain(sentence.text);
    expect(sentences.map((sentence) => [sentence.start, sentence.end])).toEqual([
      [1, 1.375],
      [1.375, 2],
    ]);
  });

  it('finds no sentence in a turn of fewer than four words', () => {
    expect(splitSentences({ start: 0, end: 1, text: 'Okay, so.' })).toEqual([]);
    expect(splitSentences({ start: 0, end: 1, text: '' })).toEqual([]);
  });
});

describe('tidySpeech', () => {
  it('keeps an assent the rest of the sentence answers with ("Yes, by January 19."), and drops it elsewhere', () => {
    expect(tidySpeech('Yes, by January 19.')).toBe('Yes, by January 19.');
    expect(tidySpeech('Yeah, agreed, but keep it short.')).toBe('Agreed, but keep it short.');
    expect(tidySpeech('Okay, on Friday.')).toBe('Okay, on Friday.');
    expect(tidySpeech('Yeah, okay, I will do it by Friday.')).toBe('I will do it by Friday.');
    expect(tidySpeech('Yes, next week.')).toBe('Yes, next week.');
    expect(tidySpeech('Well, in the kitchen.')).toBe('In the kitchen.');
    expect(tidySpeech('Okay, this is going to be an evaluation.')).toBe('This is going to be an evaluation.');
  });

  it('writes what was said without hesitations, openers and restarts, keeping every other word', () => {
    expect(tidySpeech('Uh, the the whole framework, um, that we we we use.')).toBe(
      'The whole framework that we use.',
    );
    expect(tidySpeech("Yeah, okay. So they 're going to, uh, do it and it is n't hard.")).toBe(
      "So they're going to do it and it isn't hard.",
    );
    expect(tidySpeech('Mm-hmm. The idea is good, hmm?')).toBe('The idea is good?');
    expect(tidySpeech('Morning everyone. First sync of the quarter.')).toBe('First sync of the quarter.');
    expect(tidySpeech('Hi all, okay, the budget.')).toBe('The budget.');
    expect(tidySpeech('Morning meetings are hard.')).toBe('Morning meetings are hard.');
    // Acknowledgements and thanks around what is said; an acknowledgement that goes on is kept.
    expect(tidySpeech('Good question. I believe yes, but I will confirm. Thanks, Sam.')).toBe(
      'I believe yes, but I will confirm.',
    );
    expect(tidySpeech('Good question and I do not know yet.')).toBe('I do not know yet.');
    expect(tidySpeech('Please do. If it is not possible by March, we need to know early.')).toBe(
      'If it is not possible by March, we need to know early.',
    );
    expect(tidySpeech('Good and bad news came in.')).toBe('Good and bad news came in.');
    expect(tidySpeech('Thanks for making time, Sam. This is our quarterly check-in.')).toBe(
      'This is our quarterly check-in.',
    );
    expect(tidySpeech('Good point about the pool, we give the indexer its own.')).toBe(
      'Good point about the pool, we give the indexer its own.',
    );
    expect(tidySpeech('We thank you for the petition.')).toBe('We thank you for the petition.');
    expect(tidySpeech('Thank you, Chair. The minister said no.')).toBe('The minister said no.');
    expect(tidySpeech("Okay, thank you. We've got some questions now on early help.")).toBe(
      "We've got some questions now on early help.",
    );
    expect(tidySpeech('Fair. For now the decision stands.')).toBe('For now the decision stands.');
    expect(tidySpeech('Good, the decision stands.')).toBe('Good, the decision stands.');
    expect(tidySpeech('Thank you for the petition, it is signed by many.')).toBe(
      'Thank you for the petition, it is signed by many.',
    );
    expect(tidySpeech('The user interface and the remote')).toBe('The user interface and the remote');
    // Restarts inside restarts, and a word cut off after one letter.
    expect(tidySpeech("it 's not clear that that 's That 's relative to the document ,")).toBe(
      "It's not clear that's relative to the document,",
    );
    expect(tidySpeech('they were edited s at one place, not a plan b.')).toBe(
      'They were edited at one place, not a plan b.',
    );
    // "you know," and "I mean," hold the floor; a question about knowing keeps its words.
    expect(tidySpeech("So we 're going to , you know , change channels .")).toBe(
      "So we're going to change channels.",
    );
    expect(tidySpeech('I mean , do you know the price ?')).toBe('Do you know the price?');
  });

  it('drops a word cut off and said again whole, and keeps short words said before one they begin', () => {
    expect(tidySpeech('Yeah because th th the evaluation project is done.')).toBe(
      'Because the evaluation project is done.',
    );
    expect(tidySpeech('we wanna talk about if w if we wanna add the data')).toBe(
      'We wanna talk about if we wanna add the data',
    );
    expect(tidySpeech('So it might ma make a lot of sense, wha what you want.')).toBe(
      'So it might make a lot of sense, what you want.',
    );
    expect(tidySpeech('We were in increasing trouble with the theory, but buttons help.')).toBe(
      'We were in increasing trouble with the theory, but buttons help.',
    );
    expect(tidySpeech("I think what you 're requesting is fine.")).toBe(
      "I think what you're requesting is fine.",
    );
    // A lone "i" is a word cut off where the pronoun is written "I"; in a transcript in lower case it is the pronoun.
    expect(tidySpeech('What language is that written i Is that Scheme?')).toBe(
      'What language is that written Is that Scheme?',
    );
    expect(tidySpeech('i think we should ship it')).toBe('I think we should ship it');
  });

  it('drops the parts of a sentence that only hold the floor or were broken off, and keeps a sentence of nothing else', () => {
    expect(tidySpeech("We 're pretty much working together on the design front here . Okay .")).toBe(
      "We're pretty much working together on the design front here.",
    );
    expect(tidySpeech('Right. So, the simple idea is a feature space. Right? Mmm.')).toBe(
      'So, the simple idea is a feature space.',
    );
    expect(tidySpeech('Sometimes you have breath noise and Mmm.')).toBe('Sometimes you have breath noise.');
    expect(tidySpeech('It was a constant noise addition. And they thought w.')).toBe(
      'It was a constant noise addition.',
    );
    expect(tidySpeech('We looked at the detailed design. That is in the.')).toBe(
      'We looked at the detailed design.',
    );
    expect(tidySpeech('I do not think so.')).toBe('I do not think so.');
    expect(tidySpeech('No. We keep it.')).toBe('No. We keep it.');
    expect(tidySpeech('So. Right?')).toBe('So. Right?');
    // In capitals a hesitation's letters are a name: a hidden Markov model.
    expect(tidySpeech('Results on the HMM and the MLP are close.')).toBe(
      'Results on the HMM and the MLP are close.',
    );
  });
});
