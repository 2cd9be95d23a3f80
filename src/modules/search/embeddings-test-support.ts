import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { type OpenAiStub, openAiEnv } from '../../../test/helpers/openai-stub.ts';
import type { Db } from '../../db/client.ts';

/** Arrangement helpers for the embedding tests: an app on the OpenAI stand-in, transcripts, vectors. */

export const EMBEDDING_MODEL = 'stub-embed';

export const embeddingEnv = (stub: OpenAiStub) => ({
  ...openAiEnv(stub),
  AI_EMBEDDING_MODEL: EMBEDDING_MODEL,
});

/**
 * Chosen vectors, first match wins: the marker words tell videos apart; "pricing" (a question)
 * and "subscription" (a passage) mean the same without sharing a word. Anything else: [0, 0, 1].
 */
const VECTORS: Array<[RegExp, number[]]> = [
  [/bravo/i, [1, 0, 0]],
  [/charlie/i, [0.6, 0.8, 0]],
  [/alpha/i, [0, 1, 0]],
  // Not of unit length: stored vectors are scaled to it.
  [/subscription/i, [2, 0, 0]],
  [/pricing|budget/i, [1, 0, 0]],
];
export const chosenVector = (text: string) =>
  VECTORS.find(([pattern]) => pattern.test(text))?.[1] ?? [0, 0, 1];

/** Words that share nothing with the tests' questions and queries, to fill a turn. */
const FILLER =
  'We walked along the river and talked about the weather, the garden, the long train ride home ' +
  'and the coffee in the kitchen.';

/** A turn of about 160 words: a passage of its own (passages close at 150). */
export const turn = (speaker: string, said: string) => `${speaker}: ${said} ${`${FILLER} `.repeat(7).trim()}`;

export const transcriptOf = (turns: string[]) => turns.join('\n');

export async function postVideo(
  testApp: TestApp,
  user: SignedUpUser,
  fields: { title: string; transcript: string },
): Promise<string> {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/videos',
    headers: user.headers,
    payload: { organizationId: user.organizationId, duration: '30:00', ...fields },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

export async function deleteVideo(testApp: TestApp, user: SignedUpUser, videoId: string) {
  const response = await testApp.app.inject({
    method: 'DELETE',
    url: `/videos/${videoId}`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** A video's passages, and how many of them have a vector. */
export async function coverage(db: Db, videoId: string) {
  const { rows } = await db.execute<{ passages: number; embedded: number }>(sql`
    select count(*)::int as passages, count(e.chunk_id)::int as embedded
    from transcript_chunks c left join chunk_embeddings e on e.chunk_id = c.id
    where c.video_id = ${videoId}`);
  return rows[0] ?? { passages: 0, embedded: 0 };
}

/** Waits (polling) until every passage of the videos has a vector. */
export async function waitForEmbeddings(db: Db, videoIds: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(videoIds.map((videoId) => coverage(db, videoId)));
    if (states.every((state) => state.passages > 0 && state.embedded === state.passages)) return;
    if (Date.now() > deadline) throw new Error(`passages not embedded: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The texts the stub was asked to embed, request by request. */
export const embeddingInputs = (stub: OpenAiStub) =>
  stub.requests
    .filter((request) => request.path === '/v1/embeddings')
    .map((request) => (request.body as { input: string[] }).input);
