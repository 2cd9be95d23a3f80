import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { startOpenAiStub } from '../../../test/helpers/openai-stub.ts';
import { chunkEmbeddings, transcriptChunks } from '../../db/schema/index.ts';
import {
  EMBEDDING_BATCH,
  EMBEDDING_SWEEP_JOB,
  embeddingJobs,
  embedQuery,
  requestEmbeddings,
} from './embeddings.ts';
import {
  chosenVector,
  coverage,
  deleteVideo,
  EMBEDDING_MODEL,
  embeddingEnv,
  embeddingInputs,
  postVideo,
  transcriptOf,
  turn,
  waitForEmbeddings,
} from './embeddings-test-support.ts';
import { retrieveChunks } from './retrieval.ts';

const stub = await startOpenAiStub();
afterAll(() => stub.close());

const QUESTION = 'What is our pricing plan?';
/** One passage says "plan" (a lexical match); another is about pricing without the word. */
const PLANNING = transcriptOf([
  turn('Alice', 'Welcome back everyone.'),
  turn('Bob', 'The subscription costs forty dollars a month for small teams.'),
  turn('Carol', 'The launch plan moves to June.'),
  turn('Dave', 'Thanks for coming.'),
  turn('Erin', 'See you next week.'),
]);
const texts = (found: Array<{ text: string }>) => found.map((passage) => passage.text.split('.')[0]);

describe('passage embeddings, with an embedding model', () => {
  const ctx = useTestApp({ env: embeddingEnv(stub) });
  const db = () => ctx().database.db;
  const app = () => ({ config: ctx().config, logger: ctx().app.log });
  const sweep = () => ctx().jobs.send(EMBEDDING_SWEEP_JOB);
  let owner: SignedUpUser;
  let outsider: SignedUpUser;
  let planningId: string;
  let elsewhereId: string;
  let deletedId: string;

  beforeAll(async () => {
    stub.embedWith(chosenVector);
    owner = await signUpUser(ctx().app, { name: 'Olga Owner' });
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    planningId = await postVideo(ctx(), owner, { title: 'Planning', transcript: PLANNING });
    // Closer to the question than anything the owner may read: elsewhere, and deleted.
    elsewhereId = await postVideo(ctx(), outsider, {
      title: 'Outsider pricing',
      transcript: transcriptOf([turn('Xavier', 'Our subscription is cheap.')]),
    });
    deletedId = await postVideo(ctx(), owner, {
      title: 'Old pricing',
      transcript: transcriptOf([turn('Yolanda', 'The old subscription was cheaper.')]),
    });
    await sweep();
    await waitForEmbeddings(db(), [planningId, elsewhereId, deletedId]);
    await deleteVideo(ctx(), owner, deletedId);
  });

  it('embeds every passage as stored, in batches of at most 64, at unit length, and again after a transcript change', async () => {
    const before = embeddingInputs(stub).length;
    const turns = Array.from({ length: EMBEDDING_BATCH + 6 }, (_, index) =>
      turn(`Speaker ${index}`, index === 3 ? 'The subscription renews in May.' : `Item ${index}.`),
    );
    const videoId = await postVideo(ctx(), owner, { title: 'Long meeting', transcript: transcriptOf(turns) });
    await sweep();
    await waitForEmbeddings(db(), [videoId]);

    const passages = await db()
      .select({ id: transcriptChunks.id, text: transcriptChunks.text })
      .from(transcriptChunks)
      .where(eq(transcriptChunks.videoId, videoId));
    expect(passages).toHaveLength(EMBEDDING_BATCH + 6);
    const requests = embeddingInputs(stub).slice(before);
    expect(requests.map((input) => input.length)).toEqual([EMBEDDING_BATCH, 6]);
    expect(requests.flat().sort()).toEqual(passages.map((passage) => passage.text).sort());
    expect(requests[0]?.[0]).toMatch(/^Speaker 0: Item 0\. We walked along the river/);

    const stored = await db().select().from(chunkEmbeddings).where(eq(chunkEmbeddings.videoId, videoId));
    expect(stored).toHaveLength(passages.length);
    const textOf = new Map(passages.map((passage) => [passage.id, passage.text]));
    for (const row of stored) {
      expect(row).toMatchObject({ organizationId: owner.organizationId, model: EMBEDDING_MODEL });
      // The stub's [2, 0, 0] for the subscription passage is kept at unit length.
      const expected = (textOf.get(row.chunkId) as string).includes('subscription') ? [1, 0, 0] : [0, 0, 1];
      expect(row.embedding).toEqual(expected);
    }

    const change = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: owner.headers,
      payload: { text: transcriptOf([turn('Zoe', 'A shorter meeting.'), turn('Yan', 'Indeed.')]) },
    });
    expect(change.statusCode, change.body).toBe(200);
    // The passages were rewritten: their vectors went with them, in the same commit.
    const { rows } = await db().execute<{ n: number }>(sql`
      select count(*)::int as n from chunk_embeddings
      where chunk_id = any(${sql.param(passages.map((passage) => passage.id))}::uuid[])`);
    expect(rows[0]?.n).toBe(0);
    await sweep();
    await waitForEmbeddings(db(), [videoId]);
    expect(await coverage(db(), videoId)).toEqual({ passages: 2, embedded: 2 });
  });

  it('embeds a posted transcript, and again after its speaker is renamed, without waiting for the sweep', async () => {
    const videoId = await postVideo(ctx(), owner, {
      title: 'Renamed',
      transcript: transcriptOf([turn('Quentin', 'The subscription starts in June.')]),
    });
    await waitForEmbeddings(db(), [videoId]);
    const [before] = await db()
      .select({ chunkId: chunkEmbeddings.chunkId })
      .from(chunkEmbeddings)
      .where(eq(chunkEmbeddings.videoId, videoId));

    const speakers = await ctx().app.inject({ method: 'GET', url: '/speakers', headers: owner.headers });
    const quentin = speakers.json().data.find((speaker: { name: string }) => speaker.name === 'Quentin');
    const renamed = await ctx().app.inject({
      method: 'PATCH',
      url: `/speakers/${quentin.id}`,
      headers: owner.headers,
      payload: { name: 'Quentin Blake' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await waitForEmbeddings(db(), [videoId]);
    const after = await db()
      .select({ chunkId: chunkEmbeddings.chunkId })
      .from(chunkEmbeddings)
      .where(eq(chunkEmbeddings.videoId, videoId));
    // New passages (they name the speaker anew), each with a new vector.
    expect(after.map((row) => row.chunkId)).not.toContain(before?.chunkId);
    expect(embeddingInputs(stub).flat()).toContainEqual(
      expect.stringMatching(/^Quentin Blake: The subscription/),
    );
  });

  it('requestEmbeddings queues the job in the caller’s transaction', async () => {
    await db().delete(chunkEmbeddings).where(eq(chunkEmbeddings.videoId, planningId));
    expect(await coverage(db(), planningId)).toEqual({ passages: 5, embedded: 0 });
    await db().transaction((tx) => requestEmbeddings(tx, ctx().jobs, planningId, ctx().config));
    await waitForEmbeddings(db(), [planningId]);
  });

  it('fuses vector ranks with lexical ones: a passage without the question’s words is found', async () => {
    const scope = { organizationIds: [owner.organizationId] };
    const lexical = await retrieveChunks(db(), QUESTION, scope, { limit: 2 });
    expect(texts(lexical)).toEqual(['Carol: The launch plan moves to June']);

    const queryEmbedding = await embedQuery(app(), QUESTION);
    expect(queryEmbedding).toEqual({ model: EMBEDDING_MODEL, vector: [1, 0, 0] });
    expect(embeddingInputs(stub).at(-1)).toEqual([QUESTION]);
    const fused = await retrieveChunks(db(), QUESTION, scope, { limit: 2, queryEmbedding });
    // Carol's: first lexically, and among the vector ranks; Bob's: first by vector alone.
    expect(texts(fused)).toEqual([
      'Carol: The launch plan moves to June',
      'Bob: The subscription costs forty dollars a month for small teams',
    ]);
    expect(fused[0]?.score).toBeGreaterThan(1 / 61);
    expect(fused[1]).toMatchObject({ videoId: planningId, videoTitle: 'Planning', score: 1 / 61 });
    expect(fused[1]?.speakerNames).toEqual(['Bob']);
    // Vectors alone find passages even for a question whose words are all stop words.
    const meaningOnly = await retrieveChunks(db(), 'what is it?', scope, { limit: 1, queryEmbedding });
    expect(texts(meaningOnly)).toEqual(['Bob: The subscription costs forty dollars a month for small teams']);
  });

  it('never returns another organization’s passages, or a deleted video’s, however close', async () => {
    const queryEmbedding = await embedQuery(app(), QUESTION);
    const found = await retrieveChunks(
      db(),
      QUESTION,
      { organizationIds: [owner.organizationId] },
      { limit: 20, queryEmbedding },
    );
    // Every passage of the owner's videos has a vector, so all of them come back, and nothing else.
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter((passage) => passage.videoId === planningId)).toHaveLength(5);
    expect(found.some((passage) => [elsewhereId, deletedId].includes(passage.videoId))).toBe(false);
    expect(found.some((passage) => /Xavier|Yolanda/.test(passage.text))).toBe(false);
    const theirs = await retrieveChunks(
      db(),
      QUESTION,
      { organizationIds: [outsider.organizationId] },
      { limit: 20, queryEmbedding },
    );
    expect(texts(theirs)).toEqual(['Xavier: Our subscription is cheap']);
    expect(theirs[0]?.videoId).toBe(elsewhereId);
    // Narrowed to videos, vectors stay within them too.
    const other = await retrieveChunks(
      db(),
      QUESTION,
      { organizationIds: [owner.organizationId], videoIds: [elsewhereId, deletedId] },
      { queryEmbedding },
    );
    expect(other).toEqual([]);
  });

  it('keeps retrieval lexical when the embeddings endpoint fails, and the job leaves no vector', async () => {
    stub.fail(500);
    try {
      expect(await embedQuery(app(), QUESTION)).toBeUndefined();
      const found = await retrieveChunks(db(), QUESTION, { organizationIds: [owner.organizationId] });
      expect(texts(found)).toEqual(['Carol: The launch plan moves to June']);

      const asked = embeddingInputs(stub).length;
      const videoId = await postVideo(ctx(), owner, {
        title: 'During the outage',
        transcript: transcriptOf([turn('Una', 'The launch plan needs a new date.')]),
      });
      await sweep();
      const deadline = Date.now() + 20_000;
      while (
        !embeddingInputs(stub)
          .slice(asked)
          .some((input) => input[0]?.startsWith('Una:'))
      ) {
        if (Date.now() > deadline) throw new Error('the embedding job never ran');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await coverage(db(), videoId)).toEqual({ passages: 1, embedded: 0 });
      const stillFound = await retrieveChunks(db(), QUESTION, {
        organizationIds: [owner.organizationId],
        videoIds: [videoId],
      });
      expect(texts(stillFound)).toEqual(['Una: The launch plan needs a new date']);
    } finally {
      stub.reset();
      stub.embedWith(chosenVector);
    }
  });
});

describe('passage embeddings, with the local provider', () => {
  const ctx = useTestApp();

  it('embeds nothing and asks nothing: retrieval stays lexical', async () => {
    const owner = await signUpUser(ctx().app, { name: 'Lena Local' });
    const videoId = await postVideo(ctx(), owner, { title: 'Planning', transcript: PLANNING });
    const asked = stub.requests.length;
    expect(embeddingJobs(ctx().config)).toEqual([]);
    // A no-op: the job's queue does not even exist, and sending to it would fail.
    await ctx().database.db.transaction((tx) => requestEmbeddings(tx, ctx().jobs, videoId, ctx().config));
    const queryEmbedding = await embedQuery({ config: ctx().config, logger: ctx().app.log }, QUESTION);
    expect(queryEmbedding).toBeUndefined();
    const found = await retrieveChunks(
      ctx().database.db,
      QUESTION,
      { organizationIds: [owner.organizationId] },
      { limit: 2, queryEmbedding },
    );
    expect(texts(found)).toEqual(['Carol: The launch plan moves to June']);
    expect(await coverage(ctx().database.db, videoId)).toEqual({ passages: 5, embedded: 0 });
    expect(stub.requests.length).toBe(asked);
  });
});
