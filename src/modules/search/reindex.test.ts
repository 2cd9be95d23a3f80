import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { speakers, transcriptChunks } from '../../db/schema/index.ts';
import { reindexAll } from './reindex.ts';

const TRANSCRIPT = [
  'WEBVTT',
  '',
  '00:00:00.000 --> 00:00:05.000',
  '<v Dana>The quokka enclosure needs a new fence before spring.',
  '',
  '00:00:05.000 --> 00:00:09.000',
  '<v Eli>Agreed, I will get three quotes.',
  '',
].join('\n');

describe('the knowledge index', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let videoId: string;

  const searchIds = async (q: string) => {
    const response = await ctx().app.inject({
      method: 'GET',
      url: `/search?${new URLSearchParams({ q })}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(200);
    return response.json().data.map((result: { id: string }) => result.id);
  };

  /** A video of the owner's organization with `transcript`; its id. */
  const store = async (title: string, duration: string, transcript: string) => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: owner.headers,
      payload: { organizationId: owner.organizationId, title, duration, transcript },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };

  beforeAll(async () => {
    owner = await signUpUser(ctx().app, { name: 'Olga Owner' });
    videoId = await store('Zoo board', '0:09', TRANSCRIPT);
  });

  it('stores passages with the transcript, and replaces them with it', async () => {
    const chunks = await ctx()
      .database.db.select({ text: transcriptChunks.text, speakerNames: transcriptChunks.speakerNames })
      .from(transcriptChunks)
      .where(eq(transcriptChunks.videoId, videoId));
    expect(chunks).toStrictEqual([
      {
        text: 'Dana: The quokka enclosure needs a new fence before spring.\nEli: Agreed, I will get three quotes.',
        speakerNames: ['Dana', 'Eli'],
      },
    ]);
    const replaced = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: owner.headers,
      payload: { text: 'Dana: The wombat burrow is finished.' },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(await searchIds('quokka')).toEqual([]);
    expect(await searchIds('wombat')).toEqual([videoId]);
    const restored = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: owner.headers,
      payload: { text: TRANSCRIPT },
    });
    expect(restored.statusCode).toBe(200);
  });

  it("keeps a long passage's text and vector out of its row, so that a word's passages are narrow rows", async () => {
    const { db } = ctx().database;
    const options = await db.execute<{ reloptions: string[] }>(
      sql`select reloptions from pg_class where oid = 'transcript_chunks'::regclass`,
    );
    expect(options.rows).toStrictEqual([{ reloptions: ['toast_tuple_target=128'] }]);
    // A passage of 250 different words: too long to stay whole in its row.
    const said = Array.from({ length: 250 }, (_, at) => `word${at.toString(36)}x${(at * 7919).toString(36)}`);
    const longId = await store('Long passage', '1:00', `Dana: ${said.join(' ')}.`);
    const version = await db.execute<{ n: number }>(
      sql`select current_setting('server_version_num')::int as n`,
    );
    // pg_column_toast_chunk_id (PostgreSQL 17+) says whether a value lives in the TOAST table.
    if ((version.rows[0]?.n ?? 0) >= 170_000) {
      const stored = await db.execute<{ text: boolean; search: boolean }>(sql`
        select pg_column_toast_chunk_id(text) is not null as text, pg_column_toast_chunk_id(search) is not null as search
        from transcript_chunks where video_id = ${longId}`);
      expect(stored.rows).toStrictEqual([{ text: true, search: true }]);
    }
    expect(await searchIds(said[100] as string)).toEqual([longId]);
    const removed = await ctx().app.inject({
      method: 'DELETE',
      url: `/videos/${longId}?permanent=true`,
      headers: owner.headers,
    });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
  });

  it('finds what a speaker said under their new name once renamed', async () => {
    const [dana] = await ctx()
      .database.db.select({ id: speakers.id })
      .from(speakers)
      .where(eq(speakers.organizationId, owner.organizationId));
    const rename = await ctx().app.inject({
      method: 'PATCH',
      url: `/speakers/${dana?.id}`,
      headers: owner.headers,
      payload: { name: 'Dana Scully' },
    });
    expect(rename.statusCode, rename.body).toBe(200);
    expect(await searchIds('scully')).toEqual([videoId]);
  });

  it('rebuilds lost passages with reindexAll, which the re-index command runs', async () => {
    await ctx().database.db.delete(transcriptChunks).where(eq(transcriptChunks.videoId, videoId));
    expect(await searchIds('quokka')).toEqual([]);
    const messages: string[] = [];
    expect(await reindexAll(ctx().database.db, (message) => messages.push(message))).toBe(1);
    expect(messages.at(-1)).toBe('1 videos re-chunked; 7 search indexes rebuilt');
    expect(await searchIds('quokka')).toEqual([videoId]);
  });
});
