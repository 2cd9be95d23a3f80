import { describe, expect, it } from 'vitest';
import { meetingQuestion } from './meeting-questions.ts';

describe('meetingQuestion', () => {
  it.each([
    [
      'What happened at the design review?',
      { focus: 'overview', name: 'design review', which: null, day: null },
    ],
    [
      'Summarize the customer call with Northwind.',
      { focus: 'overview', name: 'customer with Northwind', which: null, day: null },
    ],
    [
      'Can you recap the incident retrospective?',
      { focus: 'overview', name: 'incident retrospective', which: null, day: null },
    ],
    ['What was the Northwind call about?', { focus: 'overview', name: 'Northwind', which: null, day: null }],
    ['How did the customer call go?', { focus: 'overview', name: 'customer', which: null, day: null }],
    [
      'Give me a summary of the January 12 sync',
      { focus: 'overview', name: 'sync', which: null, day: { month: 1, day: 12 } },
    ],
    ['What happened on March 3?', { focus: 'overview', name: '', which: null, day: { month: 3, day: 3 } }],
    [
      'What did we discuss in the last weekly sync?',
      { focus: 'overview', name: 'weekly sync', which: 'latest', day: null },
    ],
    ['Summarize this meeting', { focus: 'overview', name: '', which: null, day: null }],
    [
      'What happened in the most recent meeting?',
      { focus: 'overview', name: '', which: 'latest', day: null },
    ],
    [
      'What was decided in the design review?',
      { focus: 'decisions', name: 'design review', which: null, day: null },
    ],
    [
      'What decisions were made at the first weekly sync?',
      { focus: 'decisions', name: 'weekly sync', which: 'earliest', day: null },
    ],
    [
      'What did we agree on in the Northwind call?',
      { focus: 'decisions', name: 'Northwind', which: null, day: null },
    ],
    ['What was agreed with Northwind?', { focus: 'decisions', name: 'Northwind', which: null, day: null }],
    ['What did we agree with Northwind?', { focus: 'decisions', name: 'Northwind', which: null, day: null }],
    [
      'What did the design review conclude?',
      { focus: 'decisions', name: 'design review', which: null, day: null },
    ],
    [
      'What was the conclusion of the last weekly sync?',
      { focus: 'decisions', name: 'weekly sync', which: 'latest', day: null },
    ],
    [
      'What was the outcome of the retrospective?',
      { focus: 'overview', name: 'retrospective', which: null, day: null },
    ],
    [
      'What came out of the Northwind call?',
      { focus: 'overview', name: 'Northwind', which: null, day: null },
    ],
    [
      'What are the action items from the Northwind call?',
      { focus: 'actions', name: 'Northwind', which: null, day: null },
    ],
    [
      'Next steps from the design review?',
      { focus: 'actions', name: 'design review', which: null, day: null },
    ],
    [
      'Who attended the design review?',
      { focus: 'participants', name: 'design review', which: null, day: null },
    ],
    [
      'Who was in the last weekly sync?',
      { focus: 'participants', name: 'weekly sync', which: 'latest', day: null },
    ],
    [
      'Who were the participants of the Northwind call?',
      { focus: 'participants', name: 'Northwind', which: null, day: null },
    ],
  ])('reads "%s" as a question about a meeting', (question, expected) => {
    expect(meetingQuestion(question)).toEqual(expected);
  });

  it.each([
    'What did we decide about search v2?',
    'Why did search go down on January 14?',
    'Who owns the lock alert?',
    'Summarize the discussion about the remote control.',
    'What was said about the budget?',
    'What did the group discuss in the meeting regarding the evaluation criteria?',
    'When does search v2 ship?',
    "What's the conclusion of the discussion about the outer casing?",
    'What was the outcome of the discussion about battery versus kinetic?',
    'What did the team conclude?',
    'What did we decide?',
  ])('leaves "%s" to retrieval: it asks about something said', (question) => {
    expect(meetingQuestion(question)).toBeNull();
  });
});
