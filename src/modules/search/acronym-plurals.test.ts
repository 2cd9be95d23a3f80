import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { qaAsker } from '../../../test/helpers/requests.ts';
import { makeVideo } from '../videos/test-support.ts';
import { acronymPlural } from './stemming.ts';
import { retrieveStretches } from './stretch-retrieval.ts';

/**
 * PostgreSQL's English stemmer keeps the "s" of "PDAs" and "KPIs" (pdas, kpis), so the plural
 * and the singular were two words: a question about PDAs found no meeting that says "PDA" and
 * was told no recording mentions them (stemming.ts, migration 0024).
 */
describe('acronyms in capitals: the plural and the singular are one word', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let devices: string;
  let metrics: string;

  /** A meeting of the owner's saying `turns` (`Speaker: words`), a minute apart; its id. */
  const meeting = async (title: string, turns: string[]) =>
    (
      await makeVideo(ctx(), owner, owner.organizationId, {
        title,
        duration: '2:00',
        transcript: turns.map((turn, at) => `[00:0${at}:00] ${turn}`).join('\n'),
      })
    ).id;
  const search = async (q: string) => {
    const response = await ctx().app.inject({
      method: 'GET',
      url: `/search?${new URLSearchParams({ q })}`,
      headers: owner.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Array<{ id: string; snippet: string; moments: Array<{ start: number; snippet: string }> }>;
    };
  };

  const asker = qaAsker<{ answer: string; answered: boolean; citations: Array<{ videoId: string }> }>(ctx);
  const ask = (question: string) => asker(owner, { question, organizationId: owner.organizationId });

  beforeAll(async () => {
    owner = await signUpUser(ctx().app);
    devices = await meeting('Recording setup', [
      'Ann: The lapel microphones worked fine in the last session.',
      'Ben: We should also record on the PDA so that we hear what a far microphone picks up.',
      'Ann: Agreed, the PDA goes on the table next time.',
    ]);
    metrics = await meeting('Quarterly planning', [
      'Cho: Our KPIs for the quarter are activation and retention.',
      'Dev: The KPIs review happens every Monday.',
    ]);
  });

  it('finds the singular said when the plural is asked, and marks what was said', async () => {
    const plural = await search('PDAs');
    expect(plural.data.map((result) => result.id)).toEqual([devices]);
    expect(plural.data[0]?.moments[0]?.snippet).toContain('<mark>PDA</mark>');
    // Not the query's last word, so not also read as a prefix of "KPIs".
    const singular = await search('KPI quarter');
    expect(singular.data.map((result) => result.id)).toEqual([metrics]);
    expect(singular.data[0]?.moments[0]?.snippet).toContain('<mark>KPIs</mark>');
    // A phrase matches the words as they stand in the text.
    expect((await search('"KPIs review"')).data.map((result) => result.id)).toEqual([metrics]);
    expect((await search('"KPI review"')).data).toEqual([]);
  });

  it('does not call a word unsaid when its singular is said, and answers from where it is', async () => {
    const scope = { organizationIds: [owner.organizationId] };
    const found = await retrieveStretches(ctx().database.db, 'Why record on PDAs?', scope);
    expect(found.unsaid).toEqual([]);
    expect(found.stretches[0]?.videoId).toBe(devices);
    const answer = await ask('Why should we record on PDAs?');
    expect(answer.answered).toBe(true);
    expect(answer.answer).not.toContain('No recording');
    expect(answer.answer).toContain('PDA');
    expect(answer.citations[0]?.videoId).toBe(devices);
  });

  it('lists the knowledge items that name the matter in either form', async () => {
    await insertKnowledge(
      ctx().database.db,
      { id: metrics, organizationId: owner.organizationId },
      {
        items: [
          {
            kind: 'decision',
            start: 10,
            end: 15,
            speaker: 'Cho',
            text: 'Decision: the KPI dashboard ships on Friday.',
          },
          {
            kind: 'action_item',
            start: 20,
            end: 25,
            speaker: 'Dev',
            text: 'Dev reviews the KPIs with sales.',
            owner: 'Dev',
          },
        ],
      },
    );
    const { answer } = await ask("What's the status of the KPIs?");
    expect(answer).toContain('KPI dashboard ships on Friday');
    expect(answer).toContain('reviews the KPIs with sales');
  });

  it('counts the singular among a meeting’s words, and leaves other words and stop words alone', async () => {
    const { rows } = await ctx().database.db.execute<{ lexeme: string; occurrences: number }>(sql`
      select lexeme, occurrences from video_terms where video_id = ${metrics} and lexeme in ('kpi', 'kpis')
      order by lexeme`);
    expect(rows).toEqual([
      { lexeme: 'kpi', occurrences: 2 },
      { lexeme: 'kpis', occurrences: 2 },
    ]);
    const { rows: vectors } = await ctx().database.db.execute<{ stemmed: string[]; asked: string }>(sql`
      select tsvector_to_array(kh_english_vector('As IDs, APIs and URLs: PDAs. ITs')) as stemmed,
        kh_question_text('As IDs, APIs and PDAs, or PDAs? ITs, Noisy-ORs') as asked`);
    expect(vectors[0]?.stemmed.sort()).toEqual(['api', 'id', 'pda', 'pdas', 'url']);
    // Only where the stemmer keeps the "s" and the singular is a word: "OR" is a stop word.
    expect(vectors[0]?.asked).toBe('As IDs, APIs and PDA, or PDA? ITs, Noisy-ORs');
  });

  it('reads a word as an acronym only when it is written in capitals', () => {
    expect(acronymPlural('PDAs')).toBe('PDAs');
    expect(acronymPlural('KPI')).toBe('KPIs');
    expect(acronymPlural('B2B')).toBe('B2Bs');
    for (const word of ['pdas', 'As', 'A', 'Budget', 'PDAS1', '2FA']) expect(acronymPlural(word)).toBeNull();
  });
});
