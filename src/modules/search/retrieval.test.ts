import { beforeAll, describe, expect, it } from 'vitest';
import { answers, type QmsumQuestion } from '../../../scripts/seed/qmsum.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { turnsVtt } from '../../../test/helpers/library.ts';
import { postQmsumMeetings } from '../../../test/helpers/qmsum.ts';
import { makeVideo } from '../videos/test-support.ts';
import { retrieveChunks } from './retrieval.ts';

describe('retrieveChunks', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let outsider: SignedUpUser;
  const loaded: Array<{ name: string; videoId: string; questions: QmsumQuestion[] }> = [];

  beforeAll(async () => {
    owner = await signUpUser(ctx().app, { name: 'Olga Owner' });
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    loaded.push(...(await postQmsumMeetings(ctx().app, owner)));
  });

  it('finds the stretch of the meeting that answers QMSum questions in its top 5, mostly first', async () => {
    let hits = 0;
    let firstHits = 0;
    let questions = 0;
    const misses: string[] = [];
    for (const meeting of loaded) {
      for (const question of meeting.questions) {
        questions++;
        const found = await retrieveChunks(ctx().database.db, question.query, {
          organizationIds: [owner.organizationId],
          videoIds: [meeting.videoId],
        });
        expect(found.length).toBeLessThanOrEqual(5);
        if (found.some((passage) => answers(passage, question))) hits++;
        if (found[0] && answers(found[0], question)) firstHits++;
        else misses.push(`${meeting.name}: ${question.query}`);
      }
    }
    expect(questions).toBe(24);
    // When this was written: 24 of 24 in the top 5, 20 of 24 first. The bars leave room for
    // ties to move, not for a ranking that stops putting the answer first.
    expect(hits, `missed:\n${misses.join('\n')}`).toBeGreaterThanOrEqual(22);
    expect(firstHits).toBeGreaterThanOrEqual(17);
  });

  it('returns passages best first, with their video, times, speakers and a positive score', async () => {
    const [education] = loaded.filter((meeting) => meeting.name === 'education_19');
    const found = await retrieveChunks(
      ctx().database.db,
      'What did Kirsty Williams think about Swansea University?',
      { organizationIds: [owner.organizationId], videoIds: [education?.videoId as string] },
    );
    expect(found).toHaveLength(5);
    const scores = found.map((passage) => passage.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(found[0]).toMatchObject({
      videoId: education?.videoId,
      videoTitle: 'education_19',
      score: expect.any(Number),
      startSeconds: expect.any(Number),
      endSeconds: expect.any(Number),
    });
    expect(found[0]?.score).toBeGreaterThan(0);
    expect(found[0]?.text).toMatch(/Swansea/);
    expect(found[0]?.speakerNames.length).toBeGreaterThan(0);
  });

  it('stays within its scope: organizations, videos, and never soft-deleted videos', async () => {
    const question = 'What did the group think of drawing a panther?';
    const elsewhere = await retrieveChunks(ctx().database.db, question, {
      organizationIds: [outsider.organizationId],
    });
    expect(elsewhere).toEqual([]);
    const [product] = loaded;
    const inOrganization = await retrieveChunks(ctx().database.db, question, {
      organizationIds: [owner.organizationId],
    });
    expect(inOrganization[0]?.videoId).toBe(product?.videoId);
    const otherVideo = loaded[1]?.videoId as string;
    const scoped = await retrieveChunks(ctx().database.db, question, {
      organizationIds: [owner.organizationId],
      videoIds: [otherVideo],
    });
    expect(scoped.every((passage) => passage.videoId === otherVideo)).toBe(true);

    const removal = await ctx().app.inject({
      method: 'DELETE',
      url: `/videos/${product?.videoId}`,
      headers: owner.headers,
    });
    expect(removal.statusCode).toBe(200);
    const afterDeletion = await retrieveChunks(ctx().database.db, question, {
      organizationIds: [owner.organizationId],
    });
    expect(afterDeletion.some((passage) => passage.videoId === product?.videoId)).toBe(false);
    await ctx().app.inject({
      method: 'POST',
      url: `/videos/${product?.videoId}/restore`,
      headers: owner.headers,
    });
  });

  it('finds nothing for a question of stop words only', async () => {
    expect(
      await retrieveChunks(ctx().database.db, 'what is it that they did?', {
        organizationIds: [owner.organizationId],
      }),
    ).toEqual([]);
  });
  it('ranks a meeting alike whether its passages are read one by one or through the index', async () => {
    // 30 turns of about 30 words: a few passages a meeting.
    const meeting = (topic: string) =>
      turnsVtt(
        Array.from({ length: 30 }, (_, at): [string, string] => [
          at % 2 ? 'Ben' : 'Ann',
          at % 7 === 3
            ? `The ${topic} survey needs volunteers and a boat; the ${topic} count starts at dawn on the north shore near the old pier.`
            : `Point ${at}: the minutes, the budget line for printing, and the rota for the front desk are agreed without change today.`,
        ]),
      );
    const post = async (user: SignedUpUser, title: string, topic: string) =>
      (
        await makeVideo(ctx(), user, user.organizationId, {
          title,
          duration: '5:00',
          transcript: meeting(topic),
        })
      ).id as string;
    // Alone in its organization, the meeting is read through the index; one of five, a fifth of
    // the passages, one by one (READ_WHOLE_SHARE).
    const alone = await signUpUser(ctx().app, { name: 'Ada Alone' });
    const many = await signUpUser(ctx().app, { name: 'Max Many' });
    const single = await post(alone, 'Heron survey', 'heron');
    const among = await post(many, 'Heron survey', 'heron');
    for (const topic of ['otter', 'badger', 'swift', 'newt']) await post(many, `${topic} survey`, topic);
    const ranked = async (user: SignedUpUser, videoId: string) =>
      (
        await retrieveChunks(ctx().database.db, 'Who counts the herons at dawn, and from which boat?', {
          organizationIds: [user.organizationId],
          videoIds: [videoId],
        })
      ).map((passage) => [passage.index, passage.score]);
    const throughIndex = await ranked(alone, single);
    expect(throughIndex.length).toBeGreaterThan(1);
    expect(await ranked(many, among)).toStrictEqual(throughIndex);
  });
});
