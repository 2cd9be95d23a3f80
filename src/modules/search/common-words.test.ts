import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { makeVideo } from '../videos/test-support.ts';
import { search } from './service.ts';
import { wordCount } from './transcript-turns.ts';
import { indexVideoTerms } from './video-terms.ts';

/** Passages stored for the large meeting: more than the 1,000 a common word's read stops at. */
const PASSAGES = 1_100;

/**
 * `GET /search` counts a word that stored counts put over the read limit without reading it from
 * the index (ranking.ts, a term that `fills` the read). The ranking must be the one the read gives: these
 * searches run with the counts, then with the word's counts removed (so that it is read), and
 * must find the same page.
 */
describe('search: a common word counted from stored counts ranks as if read', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let large: string;
  let mascot: string;

  beforeAll(async () => {
    owner = await signUpUser(ctx().app);
    const db = ctx().database.db;
    large = (await makeVideo(ctx(), owner, owner.organizationId, { title: 'Budget archive' })).id;
    // Passages written directly: a transcript of 1,100 passages would take the pipeline minutes.
    await db.execute(sql`
      insert into transcript_chunks (id, video_id, organization_id, index, first_segment_index,
        last_segment_index, start_seconds, end_seconds, speaker_names, speaker_ids, text, word_count)
      select gen_random_uuid(), ${large}, ${owner.organizationId}, n, n, n, n * 10, n * 10 + 10, '{}', '{}',
        'The budget review number ' || n || ' went over the travel lines again.', 11
      from generate_series(0, ${PASSAGES - 1}) as n`);
    await db.transaction((tx) => indexVideoTerms(tx, { id: large, organizationId: owner.organizationId }));
    mascot = (
      await makeVideo(ctx(), owner, owner.organizationId, {
        title: 'Mascot ideas',
        duration: '1:00',
        transcript:
          'WEBVTT\n\n00:00.000 --> 00:05.000\n<v Ann>The budget for the kangaroo mascot is small.\n',
      })
    ).id;
  });

  const page = (q: string) => search(ctx().database.db, owner.id, { q, page: 1, limit: 20 });
  const storedPassages = async (lexeme: string) => {
    const { rows } = await ctx().database.db.execute<{ n: number }>(
      sql`select coalesce(sum(passages), 0)::int as n from video_terms where lexeme = ${lexeme}`,
    );
    return rows[0]?.n;
  };

  it('finds the same page with and without the stored counts', async () => {
    expect(await storedPassages('budget')).toBe(PASSAGES + 1);
    // A rarer word beside the common one; the common word alone (read as a prefix: the last word);
    // two common words that no 30 meetings hold together 30 times (their passages are then listed).
    const queries = ['budget kangaroo', 'budget', 'budget review'];
    const withCounts = await Promise.all(queries.map(page));
    await ctx().database.db.execute(sql`delete from video_terms where video_id = ${large}`);
    expect(await storedPassages('budget')).toBe(1);
    const withoutCounts = await Promise.all(queries.map(page));
    expect(withCounts).toEqual(withoutCounts);
    const [rare, alone, both] = withCounts;
    expect(rare?.data.map((result) => result.id)).toEqual([mascot, large]);
    expect(alone?.data.map((result) => result.id).sort()).toEqual([large, mascot].sort());
    expect(both?.data[0]?.id).toBe(large);
  });
});

describe('wordCount', () => {
  it('counts the words split on whitespace would give', () => {
    for (const text of [
      '',
      '   ',
      'one',
      ' two  words ',
      'tabs\tand\nnew\r\nlines',
      'no\u00a0break and\u2003em\u3000ideographic\ufeffmark',
      'hyphen-ated, punctuated… words!',
    ])
      expect(wordCount(text), JSON.stringify(text)).toBe(text.split(/\s+/).filter(Boolean).length);
  });
});
