import { describe, expect, it } from 'vitest';
import {
  compareStatements,
  findDisagreements,
  isNegated,
  readableSubject,
  type Statement,
  subjectOverlap,
  valuesOf,
} from './conflicts-rules.ts';
import { subjectWords } from './word-sets.ts';

let sequence = 0;
const said = (text: string, subject: string, videoId = `video-${++sequence}`): Statement => ({
  id: `item-${++sequence}`,
  videoId,
  date: new Date(2026, 0, sequence),
  text,
  subject,
});
const values = (text: string) =>
  Object.fromEntries([...valuesOf(text)].map(([kind, set]) => [kind, [...set]]));

describe('isNegated', () => {
  it.each([
    ["We won't launch the beta in March.", true],
    ['We will not launch the beta in March.', true],
    ['We are cancelling the March launch.', true],
    ['We dropped the Android app.', true],
    ['We no longer ship on Fridays.', true],
    ['We will never support IE11.', true],
    ['We will launch the beta in March.', false],
    // Two negations affirm; phrases with "no" that negate nothing.
    ["We won't drop the Android app.", false],
    ['We will launch no later than March.', false],
    ['No, we will launch in March.', false],
  ])('%s → %s', (text, negated) => {
    expect(isNegated(text)).toBe(negated);
  });
});

describe('valuesOf', () => {
  it('reads options, months, weekdays, quarters, amounts, percentages and numbers', () => {
    expect(values("We'll go with managed Postgres for billing.")).toStrictEqual({
      option: ['managed', 'postgres'],
    });
    expect(values('Releases go out every Friday from March 3 in Q2.')).toStrictEqual({
      quarter: ['q2'],
      number: ['3'],
      month: ['march'],
      weekday: ['friday'],
    });
    expect(values('The budget is $50k, 20% more, for two teams.')).toStrictEqual({
      amount: ['50000'],
      percent: ['20'],
      number: ['2'],
    });
    expect(values('Budget: 50,000 dollars by 2026-03-15.')).toStrictEqual({
      isoDate: ['2026-03-15'],
      amount: ['50000'],
    });
  });

  it('reads "May" as a month only where a date is meant', () => {
    expect(values('We may launch in June.')).toStrictEqual({ month: ['june'] });
    expect(values('We launch in May.')).toStrictEqual({ month: ['may'] });
  });

  it('does not take pronouns or prepositions for options', () => {
    expect(values("Let's use it for now.")).toStrictEqual({});
  });
});

describe('subjectOverlap', () => {
  it('is the Jaccard similarity of the stems, without negating stems and differing values', () => {
    expect(
      subjectOverlap(subjectWords('beta launch march'), subjectWords('beta cancel launch march')),
    ).toStrictEqual({
      shared: ['beta', 'launch', 'march'],
      jaccard: 1,
    });
    const differing = new Set(['postgres', 'mysql']);
    expect(
      subjectOverlap(
        subjectWords('bill databas go postgr'),
        subjectWords('bill databas go mysql'),
        differing,
      ),
    ).toStrictEqual({ shared: ['bill', 'databas', 'go'], jaccard: 1 });
    expect(
      subjectOverlap(subjectWords('app launch mobil'), subjectWords('dashboard launch web')).jaccard,
    ).toBe(0.2);
  });
});

describe('compareStatements', () => {
  it('finds a contradiction when one negates what the other affirms', () => {
    const verdict = compareStatements(
      said('We will launch the beta in March.', 'beta launch march'),
      said("We won't launch the beta in March after all.", 'beta launch march'),
    );
    expect(verdict).toStrictEqual({
      kind: 'contradiction',
      signal: 'negation',
      confidence: 0.95,
      shared: ['launch', 'beta', 'march'],
    });
  });

  it('lets a later meeting supersede another option, and flags two options in one meeting', () => {
    const postgres = said(
      "We'll go with Postgres for the billing database.",
      'bill databas go postgr',
      'one',
    );
    const mysql = said("We'll go with MySQL for the billing database.", 'bill databas go mysql', 'two');
    expect(compareStatements(postgres, mysql)).toMatchObject({
      kind: 'superseded',
      signal: 'option',
      confidence: 1,
      shared: ['go', 'bill', 'databas'],
    });
    const sameMeeting = said("We'll go with MySQL for the billing database.", 'bill databas go mysql', 'one');
    expect(compareStatements(postgres, sameMeeting)?.kind).toBe('contradiction');
  });

  it('supersedes dates, amounts and numbers', () => {
    expect(
      compareStatements(
        said('Releases go out every Friday.', 'go releas'),
        said('Releases go out every Monday from now on.', 'go releas'),
      ),
    ).toMatchObject({ kind: 'superseded', signal: 'date', confidence: 0.95 });
    expect(
      compareStatements(
        said('The marketing budget is $50k for Q3.', 'budget market q3'),
        said('The marketing budget is $80,000 for Q3.', 'budget market q3'),
      ),
    ).toMatchObject({ kind: 'superseded', signal: 'number', confidence: 0.9 });
  });

  it('ignores statements that agree, repeat, or are about something else', () => {
    const march = said('We will launch the beta in March.', 'beta launch march');
    expect(
      compareStatements(march, said('The beta launches in March, as planned.', 'beta launch march plan')),
    ).toBeNull();
    expect(
      compareStatements(march, said('We will launch the beta in March.', 'beta launch march')),
    ).toBeNull();
    expect(
      compareStatements(
        march,
        said('We will launch the web dashboard in April.', 'april dashboard launch web'),
      ),
    ).toBeNull();
    // Not launching in March and launching in April agree; neither do two negations disagree.
    expect(
      compareStatements(
        said("We won't launch the beta in March.", 'beta launch march'),
        said('We will launch the beta in April.', 'april beta launch'),
      ),
    ).toBeNull();
    expect(
      compareStatements(
        said("We won't launch the beta in March.", 'beta launch march'),
        said("We won't launch the beta in April.", 'april beta launch'),
      ),
    ).toBeNull();
  });

  it('needs two shared subject words', () => {
    expect(
      compareStatements(
        said("We'll go with Postgres.", 'go postgr'),
        said("We'll go with MySQL.", 'go mysql'),
      ),
    ).toBeNull();
  });
});

describe('readableSubject', () => {
  it('gives the words said for the stems', () => {
    expect(readableSubject(['bill', 'databas', 'compani', 'xyz'], ['Billing database of the company'])).toBe(
      'billing database company xyz',
    );
  });
});

describe('findDisagreements', () => {
  it('links a revision to the earlier decision closest to what it says it changes, one shared word being enough', () => {
    const statements = [
      said(
        'For now the decision stands: the checklist stays, and Priya owns the redesign.',
        'checklist own priya redesign stand stay',
      ),
      said('Decision: search v2 ships behind a flag on January 30.', 'flag januari search ship'),
      said(
        'Decision: the guided setup is a candidate, and the checklist moves into settings.',
        'candid checklist guid move set setup',
      ),
      said(
        'The earlier decision to keep the checklist is on hold until the results are in.',
        'checklist earlier hold result',
      ),
    ];
    expect(findDisagreements(statements)).toEqual([
      {
        earlier: 0,
        later: 3,
        verdict: expect.objectContaining({ kind: 'superseded', signal: 'revision', shared: ['checklist'] }),
      },
    ]);
  });

  it('reads what a revision changes from the decision it names, not from the rest of what it says', () => {
    const alert = said(
      'Decision: the batch does not start before the lock alert is live.',
      'alert batch live lock start',
    );
    const checklist = said('Decision: the checklist stays.', 'checklist stay');
    const turn = said(
      'Decision: we run the experiment, starting February 16. The earlier decision to keep the checklist is on hold.',
      'checklist decis earlier experi februari hold keep run start',
    );
    expect(findDisagreements([alert, turn])).toEqual([]);
    expect(findDisagreements([checklist, turn])).toEqual([
      {
        earlier: 0,
        later: 1,
        verdict: expect.objectContaining({ signal: 'revision', shared: ['checklist'] }),
      },
    ]);
  });

  it('finds no revision in a statement that revises nothing, nor one in the same meeting', () => {
    const earlier = said('Decision: the checklist stays.', 'checklist stay', 'video-a');
    expect(
      findDisagreements([
        earlier,
        said('The checklist panel is on the home page.', 'checklist home page panel'),
      ]),
    ).toEqual([]);
    expect(
      findDisagreements([
        earlier,
        said('The earlier decision on the checklist is on hold.', 'checklist earlier hold', 'video-a'),
      ]),
    ).toEqual([]);
  });

  it('keeps value conflicts between statements about the same subject', () => {
    const statements = [
      said('We will launch the beta in March.', 'beta launch march'),
      said('We will launch the beta in April.', 'april beta launch'),
    ];
    expect(findDisagreements(statements)).toEqual([
      { earlier: 0, later: 1, verdict: expect.objectContaining({ kind: 'superseded', signal: 'date' }) },
    ]);
  });
});
