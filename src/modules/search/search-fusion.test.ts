import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { startOpenAiStub } from '../../../test/helpers/openai-stub.ts';
import { EMBEDDING_SWEEP_JOB } from './embeddings.ts';
import {
  chosenVector,
  deleteVideo,
  embeddingEnv,
  embeddingInputs,
  postVideo,
  transcriptOf,
  turn,
  waitForEmbeddings,
} from './embeddings-test-support.ts';
import { searchQuery } from './schemas.ts';
import { search } from './service.ts';

const stub = await startOpenAiStub();
afterAll(() => stub.close());

const ids = (body: { data: Array<{ id: string }> }) => body.data.map((result) => result.id);

describe('GET /search fused with vector ranks', () => {
  const ctx = useTestApp({ env: embeddingEnv(stub) });
  const db = () => ctx().database.db;
  const app = () => ({ config: ctx().config, logger: ctx().app.log });
  const find = (user: SignedUpUser, query: Record<string, string>, embedding = app()) =>
    search(db(), user.id, searchQuery.parse(query), embedding);
  const lexically = (user: SignedUpUser, query: Record<string, string>) =>
    search(db(), user.id, searchQuery.parse(query));
  let sam: SignedUpUser;
  /** By the words: the title says "budget" (alpha), then two mentions (bravo), then one (charlie). */
  let alpha: string;
  let bravo: string;
  let charlie: string;
  let outsiders: string;
  let deleted: string;

  beforeAll(async () => {
    stub.embedWith(chosenVector);
    sam = await signUpUser(ctx().app, { name: 'Sam Searcher' });
    const outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    alpha = await postVideo(ctx(), sam, {
      title: 'Budget review',
      transcript: transcriptOf([turn('Ann', 'Alpha here: the budget is set.')]),
    });
    bravo = await postVideo(ctx(), sam, {
      title: 'Weekly sync',
      transcript: transcriptOf([turn('Ben', 'Bravo here: the budget went to the budget tool.')]),
    });
    charlie = await postVideo(ctx(), sam, {
      title: 'Retro',
      transcript: transcriptOf([turn('Cat', 'Charlie here: one word on the budget.')]),
    });
    // As close to the query as bravo: elsewhere, and deleted.
    outsiders = await postVideo(ctx(), outsider, {
      title: 'Budget bravo',
      transcript: transcriptOf([turn('Xavier', 'Bravo: the budget, the budget, the budget.')]),
    });
    deleted = await postVideo(ctx(), sam, {
      title: 'Old budget',
      transcript: transcriptOf([turn('Yolanda', 'Bravo: the budget was smaller.')]),
    });
    await ctx().jobs.send(EMBEDDING_SWEEP_JOB);
    await waitForEmbeddings(db(), [alpha, bravo, charlie, outsiders, deleted]);
    await deleteVideo(ctx(), sam, deleted);
  });

  it('re-ranks the videos the words found by Reciprocal Rank Fusion with their vector ranks', async () => {
    const lexical = await lexically(sam, { q: 'budget' });
    expect(ids(lexical)).toEqual([alpha, bravo, charlie]);

    const asked = embeddingInputs(stub).length;
    const fused = await find(sam, { q: 'budget' });
    expect(embeddingInputs(stub).slice(asked)).toEqual([['budget']]);
    // Vector ranks: bravo (similarity 1), charlie (0.6), alpha (0). Fused: bravo 1/62 + 1/61,
    // alpha 1/61 + 1/63, charlie 1/63 + 1/62.
    expect(ids(fused)).toEqual([bravo, alpha, charlie]);
    expect(fused.data.map((result) => result.score)).toEqual([0.0325, 0.0323, 0.032]);
    // Only the order changes: what was found, its snippets and moments, the facets and totals.
    expect(fused.facets).toEqual(lexical.facets);
    expect(fused.pagination).toEqual(lexical.pagination);
    const strip = (body: typeof lexical) =>
      body.data.map(({ score: _score, ...result }) => result).sort((a, b) => a.id.localeCompare(b.id));
    expect(strip(fused)).toEqual(strip(lexical));
    expect(fused.data[0]?.moments?.[0]?.snippet).toContain('<mark>budget</mark>');
  });

  it('adds no video the words did not find, and never another organization’s or a deleted one', async () => {
    const fused = await find(sam, { q: 'budget', limit: '50' });
    expect(ids(fused).sort()).toEqual([alpha, bravo, charlie].sort());
    expect(ids(fused)).not.toContain(outsiders);
    expect(ids(fused)).not.toContain(deleted);
    // Every video of Sam's is near some query vector: none is added to a search that found nothing.
    expect(await find(sam, { q: 'nonexistentword' })).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('pages through the fused order', async () => {
    const first = await find(sam, { q: 'budget', limit: '2' });
    const second = await find(sam, { q: 'budget', limit: '2', page: '2' });
    expect([...ids(first), ...ids(second)]).toEqual([bravo, alpha, charlie]);
    expect(second.pagination).toMatchObject({ total: 3 });
  });

  it('embeds nothing when it could change nothing: other types only, or a speaker filter', async () => {
    const asked = embeddingInputs(stub).length;
    expect(await find(sam, { q: 'budget', types: 'clip' })).toEqual(
      await lexically(sam, { q: 'budget', types: 'clip' }),
    );
    expect(await find(sam, { q: 'budget', speaker: 'Ben' })).toEqual(
      await lexically(sam, { q: 'budget', speaker: 'Ben' }),
    );
    const local = {
      ...app(),
      config: { ...ctx().config, ai: { ...ctx().config.ai, provider: 'local' as const } },
    };
    expect(await find(sam, { q: 'budget' }, local)).toEqual(await lexically(sam, { q: 'budget' }));
    expect(embeddingInputs(stub).length).toBe(asked);
  });

  it('ranks lexically when the embeddings endpoint fails or does not answer', async () => {
    const lexical = await lexically(sam, { q: 'budget' });
    try {
      stub.fail(503);
      expect(await find(sam, { q: 'budget' })).toEqual(lexical);
      stub.hang();
      expect(await find(sam, { q: 'budget' })).toEqual(lexical);
      const response = await ctx().app.inject({
        method: 'GET',
        url: '/search?q=budget',
        headers: sam.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(ids(response.json())).toEqual(ids(lexical));
    } finally {
      stub.reset();
      stub.embedWith(chosenVector);
    }
  });
});
