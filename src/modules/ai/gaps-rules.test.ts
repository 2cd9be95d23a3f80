import { describe, expect, it } from 'vitest';
import {
  type Asking,
  decisionsWithoutOwner,
  findGaps,
  type GapInput,
  type Moment,
  openQuestions,
  staleDecisions,
  type TopicPresence,
  unansweredQuestions,
  undocumentedTopics,
} from './gaps-rules.ts';

const DAY = 86_400_000;
const now = new Date('2026-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);
const organizationId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

let sequence = 0;
const moment = (fields: Partial<Moment> & Pick<Moment, 'kind' | 'text' | 'subject'>): Moment => ({
  id: `item-${++sequence}`,
  speaker: 'Bob',
  start: 10,
  end: 15,
  owner: null,
  answered: null,
  videoId: 'meeting-1',
  videoTitle: 'Weekly sync',
  date: daysAgo(10),
  ...fields,
});
const asking = (fields: Partial<Asking> & Pick<Asking, 'question' | 'normalized'>): Asking => ({
  userId: 'alice',
  answered: false,
  confidence: 0,
  askedAt: daysAgo(1),
  ...fields,
});
const presence = (fields: Partial<TopicPresence> & Pick<TopicPresence, 'videoId'>): TopicPresence => ({
  topicId: 'topic-pricing',
  name: 'pricing',
  key: 'price',
  videoTitle: `Meeting ${fields.videoId}`,
  date: daysAgo(5),
  score: 0.2,
  mentions: 2,
  firstStart: 30,
  ...fields,
});
const input = (fields: Partial<GapInput>): GapInput => ({
  organizationId,
  now,
  since: daysAgo(90),
  moments: [],
  askings: [],
  topics: [],
  ...fields,
});

describe('unansweredQuestions', () => {
  it('groups askings by their stemmed words, counts people, and shows the latest wording', () => {
    const askings = [
      asking({ question: 'What is the Mars plan?', normalized: 'mar plan', askedAt: daysAgo(3) }),
      asking({ question: 'Mars plan?', normalized: 'mar plan', userId: 'bob', askedAt: daysAgo(2) }),
      asking({ question: 'mars: the plan', normalized: 'mar plan', answered: true, confidence: 0.2 }),
    ];
    const [gap, ...others] = unansweredQuestions(input({ askings }));
    expect(others).toStrictEqual([]);
    expect(gap).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'unanswered_question',
      title: 'mars: the plan',
      description: 'Asked 3 times by 2 people; the library answers it only weakly (confidence below 0.35).',
      severity: 'medium',
      occurrences: 3,
      evidence: [
        {
          text: 'mars: the plan',
          videoId: null,
          videoTitle: null,
          start: null,
          end: null,
          speaker: null,
          at: daysAgo(1),
        },
        {
          text: 'Mars plan?',
          videoId: null,
          videoTitle: null,
          start: null,
          end: null,
          speaker: null,
          at: daysAgo(2),
        },
        {
          text: 'What is the Mars plan?',
          videoId: null,
          videoTitle: null,
          start: null,
          end: null,
          speaker: null,
          at: daysAgo(3),
        },
      ],
      firstSeenAt: daysAgo(3),
      lastSeenAt: daysAgo(1),
    });
    // The same gap keeps its id; another organization's has another.
    expect(unansweredQuestions(input({ askings }))[0]?.id).toBe(gap?.id);
    expect(unansweredQuestions(input({ askings, organizationId: 'other' }))[0]?.id).not.toBe(gap?.id);
  });

  it('closes a question once its latest asking was answered well, and ranks by people and times', () => {
    const answeredNow = [
      asking({ question: 'Mars plan?', normalized: 'mar plan', askedAt: daysAgo(2) }),
      asking({ question: 'Mars plan?', normalized: 'mar plan', answered: true, confidence: 0.8 }),
    ];
    expect(unansweredQuestions(input({ askings: answeredNow }))).toStrictEqual([]);
    const once = unansweredQuestions(input({ askings: [asking({ question: 'Why?', normalized: '' })] }));
    expect(once[0]).toMatchObject({
      severity: 'low',
      description: 'Asked 1 time by 1 person; nothing in the library answers it.',
    });
    const threePeople = ['a', 'b', 'c'].map((userId) => asking({ question: 'Q?', normalized: 'q', userId }));
    expect(unansweredQuestions(input({ askings: threePeople }))[0]?.severity).toBe('high');
    const sixTimes = Array.from({ length: 6 }, (_, day) =>
      asking({ question: `Q ${day}?`, normalized: 'q', askedAt: daysAgo(day) }),
    );
    const [often] = unansweredQuestions(input({ askings: sixTimes }));
    expect(often).toMatchObject({ severity: 'high', occurrences: 6, title: 'Q 0?', firstSeenAt: daysAgo(5) });
    expect(often?.evidence.map((evidence) => evidence.text)).toStrictEqual([
      'Q 0?',
      'Q 1?',
      'Q 2?',
      'Q 3?',
      'Q 4?',
    ]);
  });
});

describe('openQuestions', () => {
  const question = (fields: Partial<Moment>) =>
    moment({
      kind: 'question',
      answered: false,
      text: 'Who owns the pricing page?',
      subject: 'own page price',
      ...fields,
    });

  it('groups the same question across meetings, unless a later meeting answers it', () => {
    const first = question({ videoId: 'm1', videoTitle: 'Sync 1', date: daysAgo(40) });
    const again = question({
      videoId: 'm2',
      videoTitle: 'Sync 2',
      date: daysAgo(20),
      text: 'Who owns pricing page?',
    });
    const [gap] = openQuestions(input({ moments: [first, again] }));
    expect(gap).toMatchObject({
      type: 'open_question',
      title: 'Who owns pricing page?',
      description:
        'Raised in 2 meetings (last on 2026-06-10) and never answered, neither there nor in a later meeting.',
      severity: 'medium',
      occurrences: 2,
      firstSeenAt: daysAgo(40),
      lastSeenAt: daysAgo(20),
    });
    expect(gap?.evidence[0]).toStrictEqual({
      text: 'Who owns pricing page?',
      videoId: 'm2',
      videoTitle: 'Sync 2',
      start: 10,
      end: 15,
      speaker: 'Bob',
      at: daysAgo(20),
    });
    // A later decision holding 2 of its 3 words (≥ 60 %) answers it; an earlier one, or 1 word, does not.
    const decision = (date: Date, subject: string) =>
      moment({ kind: 'decision', text: 'Maria owns the pricing page.', subject, videoId: 'm3', date });
    expect(
      openQuestions(input({ moments: [first, again, decision(daysAgo(5), 'maria own page')] })),
    ).toStrictEqual([]);
    expect(
      openQuestions(input({ moments: [first, again, decision(daysAgo(30), 'maria own page')] })),
    ).toHaveLength(1);
    expect(
      openQuestions(input({ moments: [first, again, decision(daysAgo(5), 'maria page')] })),
    ).toHaveLength(1);
    const answeredQuestion = question({ answered: true, videoId: 'm3', date: daysAgo(5) });
    expect(openQuestions(input({ moments: [first, again, answeredQuestion] }))).toStrictEqual([]);
  });

  it('rates by meetings and age, and leaves out questions before the window', () => {
    const recent = question({ date: daysAgo(3) });
    expect(openQuestions(input({ moments: [recent] }))[0]?.severity).toBe('low');
    const inThree = ['m1', 'm2', 'm3'].map((videoId) => question({ videoId, date: daysAgo(3) }));
    expect(openQuestions(input({ moments: inThree }))[0]?.severity).toBe('high');
    expect(openQuestions(input({ moments: [question({ date: daysAgo(100) })] }))).toStrictEqual([]);
  });
});

describe('decisionsWithoutOwner', () => {
  const decision = moment({
    kind: 'decision',
    text: 'We will rewrite the onboarding emails.',
    subject: 'email onboard rewrit',
  });

  it('flags a decision whose meeting has no owned action item about it', () => {
    const [gap] = decisionsWithoutOwner(input({ moments: [decision] }));
    expect(gap).toMatchObject({
      type: 'decision_without_owner',
      title: 'Decision with no owner: We will rewrite the onboarding emails.',
      description:
        'Decided in "Weekly sync" on 2026-06-20; no action item of that meeting with an owner is about it.',
      severity: 'medium',
      occurrences: 1,
      firstSeenAt: daysAgo(10),
      lastSeenAt: daysAgo(10),
    });
    const action = (fields: Partial<Moment>) =>
      moment({
        kind: 'action_item',
        text: 'Dana drafts the emails.',
        subject: 'dana draft email',
        owner: 'Dana',
        ...fields,
      });
    expect(decisionsWithoutOwner(input({ moments: [decision, action({})] }))).toStrictEqual([]);
    expect(decisionsWithoutOwner(input({ moments: [decision, action({ owner: null })] }))).toHaveLength(1);
    expect(decisionsWithoutOwner(input({ moments: [decision, action({ videoId: 'other' })] }))).toHaveLength(
      1,
    );
    expect(
      decisionsWithoutOwner(input({ moments: [decision, action({ subject: 'dana draft faq' })] })),
    ).toHaveLength(1);
    expect(decisionsWithoutOwner(input({ moments: [{ ...decision, date: daysAgo(45) }] }))[0]?.severity).toBe(
      'low',
    );
  });
});

describe('gap titles', () => {
  it('leave out the label a decision or a question was announced with, when it names its kind', () => {
    const stale = (text: string) =>
      staleDecisions(
        input({
          moments: [moment({ kind: 'decision', text, subject: 'api legaci sunset', date: daysAgo(120) })],
        }),
      )[0]?.title;
    expect(stale('Okay, decision: we sunset the legacy API.')).toBe(
      'Stale decision: We sunset the legacy API.',
    );
    expect(stale('Let me summarise. Decision on our side: the legacy API is sunset.')).toBe(
      'Stale decision: The legacy API is sunset.',
    );
    // A label of something else is part of what was decided.
    expect(stale('Pricing: we sunset the legacy API.')).toBe(
      'Stale decision: Pricing: we sunset the legacy API.',
    );
    const [open] = openQuestions(
      input({
        moments: [
          moment({
            kind: 'question',
            answered: false,
            text: 'Open question from me: who owns the legacy API?',
            subject: 'api legaci own',
          }),
        ],
      }),
    );
    expect(open?.title).toBe('Who owns the legacy API?');
    // The evidence quotes it as said.
    expect(open?.evidence[0]?.text).toBe('Open question from me: who owns the legacy API?');
  });
});

describe('staleDecisions', () => {
  const old = moment({
    kind: 'decision',
    text: 'We will sunset the legacy API.',
    subject: 'api legaci sunset',
    date: daysAgo(120),
  });

  it('flags a decision 90+ days old that no later meeting came back to', () => {
    expect(staleDecisions(input({ moments: [old] }))).toMatchObject([
      {
        type: 'stale_decision',
        title: 'Stale decision: We will sunset the legacy API.',
        description: 'Decided 120 days ago in "Weekly sync" and not discussed in any meeting since.',
        severity: 'low',
      },
    ]);
    const later = (fields: Partial<Moment>) =>
      moment({
        kind: 'action_item',
        text: 'Move clients off the legacy API.',
        subject: 'api client legaci move',
        ...fields,
      });
    expect(staleDecisions(input({ moments: [old, later({ date: daysAgo(60) })] }))).toStrictEqual([]);
    expect(staleDecisions(input({ moments: [old, later({ date: daysAgo(150) })] }))).toHaveLength(1);
    const topic = presence({ videoId: 'm9', key: 'legaci api', date: daysAgo(30) });
    expect(staleDecisions(input({ moments: [old], topics: [topic] }))).toStrictEqual([]);
    expect(staleDecisions(input({ moments: [old], topics: [{ ...topic, key: 'legaci app' }] }))).toHaveLength(
      1,
    );
  });

  it('looks at decisions that turned stale within the window only', () => {
    expect(staleDecisions(input({ moments: [{ ...old, date: daysAgo(80) }] }))).toStrictEqual([]);
    expect(staleDecisions(input({ moments: [{ ...old, date: daysAgo(200) }] }))).toStrictEqual([]);
    const wide = input({ since: daysAgo(365), moments: [{ ...old, date: daysAgo(200) }] });
    expect(staleDecisions(wide)[0]?.severity).toBe('medium');
  });
});

describe('undocumentedTopics', () => {
  const threeMeetings = ['m1', 'm2', 'm3'].map((videoId, index) =>
    presence({ videoId, date: daysAgo(10 + index) }),
  );

  it('flags a topic talked around in 3 meetings, central to none, with nothing decided', () => {
    const [gap] = undocumentedTopics(input({ topics: threeMeetings }));
    expect(gap).toMatchObject({
      type: 'undocumented_topic',
      title: 'Undocumented topic: pricing',
      description:
        'Came up in 3 meetings but was central to none (score below 0.5), and no decision or action item is about it.',
      severity: 'medium',
      occurrences: 3,
      firstSeenAt: daysAgo(12),
      lastSeenAt: daysAgo(10),
    });
    expect(gap?.evidence[0]).toStrictEqual({
      text: '"pricing" mentioned 2 times',
      videoId: 'm1',
      videoTitle: 'Meeting m1',
      start: 30,
      end: null,
      speaker: null,
      at: daysAgo(10),
    });
    const central = [...threeMeetings.slice(1), presence({ videoId: 'm1', score: 0.9 })];
    expect(undocumentedTopics(input({ topics: central }))).toStrictEqual([]);
    const decided = moment({ kind: 'decision', text: 'Pricing goes up.', subject: 'go price' });
    expect(undocumentedTopics(input({ topics: threeMeetings, moments: [decided] }))).toStrictEqual([]);
    expect(undocumentedTopics(input({ topics: threeMeetings.slice(1) }))).toStrictEqual([]);
  });

  it('flags a topic asked about twice that at most one meeting is about', () => {
    const askings = [
      asking({ question: 'What is our pricing?', normalized: 'price', askedAt: daysAgo(2) }),
      asking({ question: 'How do we price enterprise?', normalized: 'enterpris price' }),
    ];
    const once = [presence({ videoId: 'm1', score: 0.8 })];
    expect(undocumentedTopics(input({ topics: once, askings }))[0]).toMatchObject({
      description: 'Asked about 2 times through Q&A and chat, while only one meeting is mainly about it.',
      severity: 'medium',
      occurrences: 3,
      lastSeenAt: daysAgo(1),
    });
    expect(undocumentedTopics(input({ topics: once, askings: askings.slice(1) }))).toStrictEqual([]);
    const both = undocumentedTopics(input({ topics: threeMeetings, askings }))[0];
    expect(both).toMatchObject({ severity: 'high', occurrences: 5 });
    expect(both?.description).toMatch(/^Came up in 3 meetings.*Asked about 2 times.*no meeting is mainly/);
  });
});

describe('findGaps', () => {
  it('orders by severity, then the most recently seen, and filters by type', () => {
    const moments = [
      moment({ kind: 'decision', text: 'Old decision.', subject: 'old', date: daysAgo(40) }),
      moment({ kind: 'decision', text: 'New decision.', subject: 'new', date: daysAgo(2) }),
    ];
    const askings = ['a', 'b', 'c'].map((userId) =>
      asking({ question: 'Q?', normalized: 'q', userId, askedAt: daysAgo(50) }),
    );
    const all = findGaps(input({ moments, askings }));
    expect(all.map((gap) => [gap.type, gap.severity, gap.title])).toStrictEqual([
      ['unanswered_question', 'high', 'Q?'],
      ['decision_without_owner', 'medium', 'Decision with no owner: New decision.'],
      ['decision_without_owner', 'low', 'Decision with no owner: Old decision.'],
    ]);
    expect(findGaps(input({ moments, askings }), 'unanswered_question')).toHaveLength(1);
  });
});
