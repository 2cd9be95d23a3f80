import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo, inTeam, type Team, team } from '../transcripts/test-support.ts';

const DAY = 86_400_000;
const billing = (choice: string) => ({
  kind: 'decision' as const,
  text: `We'll go with ${choice} for the billing database.`,
  subject: `bill databas go ${choice.toLowerCase().replace(/es$/, '')}`,
  speaker: 'Ada',
  start: 12,
});

describe('GET /ai/gaps/conflicts', () => {
  const ctx = useTestApp();
  let crew: Team;
  let otto: SignedUpUser;
  let architectureId: string;

  const get = (user: SignedUpUser | null, url: string) =>
    ctx().app.inject({ method: 'GET', url, headers: user ? user.headers : {} });
  const conflictsOf = async (user: SignedUpUser, query = '') => {
    const response = await get(user, `/ai/gaps/conflicts?organizationId=${crew.organizationId}${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data;
  };
  const meeting = (title: string, daysAgo: number, fields: { isDeleted?: boolean } = {}) =>
    insertVideo(ctx(), inTeam(crew, crew.owner), {
      title,
      recordedAt: new Date(ctx().clock.now().getTime() - daysAgo * DAY),
      ...fields,
    });

  beforeAll(async () => {
    crew = await team(ctx());
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const { db } = ctx().database;
    await insertKnowledge(db, await meeting('Planning', 60), {
      items: [
        billing('Postgres'),
        {
          kind: 'decision',
          text: 'We will launch the beta in March.',
          subject: 'beta launch march',
          start: 30,
        },
      ],
    });
    const architecture = await meeting('Architecture', 30);
    architectureId = architecture.id;
    await insertKnowledge(db, architecture, {
      items: [
        billing('MySQL'),
        {
          kind: 'question',
          text: 'When is the beta launch?',
          subject: 'beta launch',
          answered: true,
          answer: { text: "We won't launch the beta in March.", start: 42, end: 45, speaker: 'Dana' },
        },
        // Unanswered questions state nothing.
        {
          kind: 'question',
          text: 'Should we launch the beta in April?',
          subject: 'april beta launch',
          answered: false,
        },
      ],
    });
    await insertKnowledge(db, await meeting('Budget review', 10), {
      items: [
        {
          kind: 'decision',
          text: 'The marketing budget is $50k for Q3.',
          subject: 'budget market q3',
          start: 5,
        },
        {
          kind: 'decision',
          text: 'The marketing budget is $80,000 for Q3.',
          subject: 'budget market q3',
          start: 50,
        },
      ],
    });
    await insertKnowledge(db, await meeting('Cloud costs', 5), { items: [billing('SQLite')] });
    // Deleted, out of the window, or another organization's: never compared.
    await insertKnowledge(db, await meeting('Deleted sync', 3, { isDeleted: true }), {
      items: [billing('Oracle')],
    });
    await insertKnowledge(db, await meeting('Last year', 400), {
      items: [{ kind: 'decision', text: 'We will launch the beta in April.', subject: 'april beta launch' }],
    });
    await insertKnowledge(db, await insertVideo(ctx(), otto, { title: "Otto's sync" }), {
      items: [billing('Postgres'), billing('MongoDB')],
    });
  });

  it('finds superseded choices, contradictions within a meeting, and negations, most recent first', async () => {
    const data = await conflictsOf(crew.viewer);
    expect(
      data.map((c: { subject: string; kind: string; confidence: number }) => [
        c.subject,
        c.kind,
        c.confidence,
      ]),
    ).toStrictEqual([
      ['go billing database', 'superseded', 1],
      ['marketing budget q3', 'contradiction', 0.9],
      ['launch beta', 'contradiction', 0.75],
    ]);
    const [choice, budget, beta] = data;
    expect(choice.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    expect(choice.statements).toStrictEqual(
      [
        ['Postgres', 'Planning'],
        ['MySQL', 'Architecture'],
        ['SQLite', 'Cloud costs'],
      ].map(([choice, videoTitle]) => ({
        text: `We'll go with ${choice} for the billing database.`,
        videoId: expect.any(String),
        videoTitle,
        start: 12,
        speaker: 'Ada',
        date: isoDate,
      })),
    );
    expect(budget.statements.map((s: { text: string }) => s.text)).toStrictEqual([
      'The marketing budget is $50k for Q3.',
      'The marketing budget is $80,000 for Q3.',
    ]);
    expect(beta.statements).toStrictEqual([
      {
        text: 'We will launch the beta in March.',
        videoId: expect.any(String),
        videoTitle: 'Planning',
        start: 30,
        speaker: null,
        date: isoDate,
      },
      {
        text: "We won't launch the beta in March.",
        videoId: architectureId,
        videoTitle: 'Architecture',
        start: 42,
        speaker: 'Dana',
        date: isoDate,
      },
    ]);
    expect(JSON.stringify(data)).not.toMatch(/Oracle|MongoDB|April/);
    // Ids are stable across calls.
    expect((await conflictsOf(crew.owner)).map((c: { id: string }) => c.id)).toStrictEqual(
      data.map((c: { id: string }) => c.id),
    );
  });

  it('compares only the statements of the last `days`', async () => {
    expect(
      (await conflictsOf(crew.owner, '&days=20')).map((c: { subject: string }) => c.subject),
    ).toStrictEqual(['marketing budget q3']);
  });

  it("answers for the caller's default organization, never another's", async () => {
    const response = await get(otto, '/ai/gaps/conflicts');
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject([
      {
        kind: 'contradiction',
        statements: [{ text: expect.stringMatching(/Postgres/) }, { text: expect.stringMatching(/MongoDB/) }],
      },
    ]);
  });

  it('refuses invalid queries and foreign organizations with 400, anonymous callers with 401', async () => {
    for (const query of ['days=0', 'days=3651', 'days=soon']) {
      const response = await get(crew.owner, `/ai/gaps/conflicts?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().details).toMatchObject([{ path: 'querystring.days' }]);
    }
    const foreign = await get(otto, `/ai/gaps/conflicts?organizationId=${crew.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await get(null, '/ai/gaps/conflicts')).statusCode).toBe(401);
  });
});
