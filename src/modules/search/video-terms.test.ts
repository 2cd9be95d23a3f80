import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { migrationsFolder } from '../../db/migrate.ts';
import { makeVideo } from '../videos/test-support.ts';
import { retrieveChunks } from './retrieval.ts';
import { meetingLikelihood } from './video-terms.ts';

const vtt = (...lines: string[]) =>
  `WEBVTT\n\n${lines.map((line, at) => `00:00:${String(at * 5).padStart(2, '0')}.000 --> 00:00:${String(at * 5 + 5).padStart(2, '0')}.000\n<v Ann>${line}\n`).join('\n')}`;

describe('video terms: what a meeting says as a whole', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;

  beforeAll(async () => {
    owner = await signUpUser(ctx().app);
  });

  const store = async (title: string, transcript: string) =>
    (await makeVideo(ctx(), owner, owner.organizationId, { title, duration: '1:00', transcript }))
      .id as string;

  /** Each stemmed word's occurrences and passages, and the video's totals. */
  const termsOf = async (videoId: string) => {
    const { rows } = await ctx().database.db.execute<{
      lexeme: string;
      occurrences: number;
      passages: number;
    }>(
      sql`select lexeme, occurrences, passages from video_terms where video_id = ${videoId} order by lexeme`,
    );
    const { rows: totals } = await ctx().database.db.execute<{
      occurrences: number;
      passages: number;
      passageWords: number;
    }>(
      sql`select occurrences, passages, passage_words as "passageWords" from video_term_totals where video_id = ${videoId}`,
    );
    return {
      terms: Object.fromEntries(rows.map((row) => [row.lexeme, [row.occurrences, row.passages]])),
      totals: totals[0],
    };
  };

  it('counts the stemmed words said (no stop words) and the passages holding each (speakers’ names too), and recounts a new transcript', async () => {
    const id = await store('Walrus watch', vtt('The walrus is running.', 'Walruses run; the walrus rests.'));
    expect(await termsOf(id)).toStrictEqual({
      // Ann is named in the passage ("Ann: The walrus is running. …"), never said.
      terms: { ann: [0, 1], rest: [1, 1], run: [2, 1], walrus: [3, 1] },
      totals: { occurrences: 6, passages: 1, passageWords: 9 },
    });

    const replaced = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${id}/transcript`,
      headers: owner.headers,
      payload: { text: vtt('Budget, budget and the forecast.') },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(await termsOf(id)).toStrictEqual({
      terms: { ann: [0, 1], budget: [2, 1], forecast: [1, 1] },
      totals: { occurrences: 3, passages: 1, passageWords: 5 },
    });

    const removed = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${id}/transcript`,
      headers: owner.headers,
      payload: { text: null },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await termsOf(id)).toStrictEqual({ terms: {}, totals: undefined });
  });

  it('counts, summed over the videos, as many passages holding a word as the index finds, and again after a speaker is renamed', async () => {
    const long = (word: string) => `${Array.from({ length: 170 }, () => word).join(' ')}.`;
    const id = await store(
      'Heron log',
      vtt(long('heron'), 'The heron count.', long('marsh'), 'Marsh and heron.'),
    );
    const compare = async () => {
      const { rows } = await ctx().database.db.execute<{
        lexeme: string;
        counted: number;
        indexed: number;
      }>(sql`
        select t.lexeme, t.passages as counted,
          (select count(*) from transcript_chunks c where c.video_id = t.video_id and c.search @@ quote_literal(t.lexeme)::tsquery)::int as indexed
        from video_terms t where t.video_id = ${id} order by t.lexeme`);
      return rows;
    };
    const before = await compare();
    expect(before.map((row) => row.lexeme)).toStrictEqual(['ann', 'count', 'heron', 'marsh']);
    expect(before.find((row) => row.lexeme === 'heron')?.counted).toBeGreaterThan(1);
    for (const row of before) expect(row.counted, row.lexeme).toBe(row.indexed);

    const { rows: speakers } = await ctx().database.db.execute<{ id: string }>(
      sql`select id from speakers where organization_id = ${owner.organizationId} and name = 'Ann'`,
    );
    const renamed = await ctx().app.inject({
      method: 'PATCH',
      url: `/speakers/${speakers[0]?.id}`,
      headers: owner.headers,
      payload: { name: 'Beatrix Kiddo' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const after = await compare();
    expect(after.map((row) => row.lexeme)).toStrictEqual(['beatrix', 'count', 'heron', 'kiddo', 'marsh']);
    for (const row of after) expect(row.counted, row.lexeme).toBe(row.indexed);
  });

  it('ranks the meeting that keeps saying the question’s words likeliest, and one that never does least', async () => {
    const focused = await store(
      'Focused',
      vtt('The ferry timetable.', 'Ferry delays again.', 'Timetable for winter.'),
    );
    const passing = await store(
      'Passing',
      vtt(
        'The ferry came up.',
        'The ferry, then parking.',
        'Ferry parking fees.',
        'Parking permits for staff.',
      ),
    );
    const unrelated = await store('Unrelated', vtt('Lunch options.', 'Salad or soup.'));
    const { rows } = await ctx().database.db.execute<{ video_id: string; value: number }>(sql`
      with ${meetingLikelihood({
        words: sql`(select lexeme, 1.0 as factor
          from unnest(tsvector_to_array(to_tsvector('english', 'ferry timetable'))) as lexeme)`,
        videos: sql`(select unnest(${sql.param([focused, passing, unrelated])}::uuid[]) as video_id)`,
        organizations: sql`${sql.param([owner.organizationId])}::uuid[]`,
      })}
      select video_id, value from meeting_likelihood order by value desc`);
    expect(rows.map((row) => row.video_id)).toStrictEqual([focused, passing, unrelated]);
  });
  it('retrieves first, across meetings, a passage of the meeting that keeps saying the question’s words', async () => {
    const shore = 'harbour tide rope sail anchor gull pier dock net boat'.split(' ');
    const filler = (words: number) =>
      `${Array.from({ length: words }, (_, at) => shore[at % shore.length]).join(' ')}.`;
    const long = Array.from({ length: 10 }, () => filler(160));
    // The densest passage, in a long meeting that says the words nowhere else.
    await store('Coast log', vtt('The lighthouse keeper, the lighthouse keeper.', ...long));
    // Weaker passages, apart from each other, but the meeting keeps coming back to the words.
    const said = ['The lighthouse keeper.', filler(160)];
    const recurring = await store('Shore notes', vtt(...said, filler(160), ...said, filler(160), ...said));
    // Said once, in a longer passage.
    await store('Bay notes', vtt('The lighthouse keeper.', filler(250)));
    const [first] = await retrieveChunks(ctx().database.db, 'What about the lighthouse keeper?', {
      organizationIds: [owner.organizationId],
    });
    expect(first?.videoId).toBe(recurring);
  });

  it('counts transcripts stored before the migrations as a stored transcript is counted', async () => {
    const counts = async () => {
      const { rows } = await ctx().database.db.execute(sql`
        select video_id, lexeme, occurrences, passages, null::int as passage_words from video_terms
        union all select video_id, '', occurrences, passages, passage_words from video_term_totals
        order by 1, 2`);
      return rows;
    };
    const stored = await counts();
    expect(stored.length).toBeGreaterThan(10);
    const backfill = ['0018_video_terms.sql', '0023_passage_counts.sql'].flatMap((file) =>
      readFileSync(`${migrationsFolder}/${file}`, 'utf8')
        .split('--> statement-breakpoint')
        .filter((statement) => /^(?:INSERT INTO|UPDATE) /m.test(statement)),
    );
    expect(backfill).toHaveLength(4);
    await ctx().database.db.execute(sql`delete from video_terms`);
    await ctx().database.db.execute(sql`delete from video_term_totals`);
    for (const statement of backfill) await ctx().database.db.execute(sql.raw(statement));
    expect(await counts()).toStrictEqual(stored);
  });
});
