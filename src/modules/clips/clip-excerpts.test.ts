import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { speakers, transcriptSegments } from '../../db/schema/index.ts';
import { type Team, team } from '../transcripts/test-support.ts';

describe('clip transcript excerpts', () => {
  const ctx = useTestApp();
  let t: Team;
  let videoId: string;

  beforeAll(async () => {
    t = await team(ctx());
    const db = ctx().database.db;
    videoId = (await createVideoRow(db, { organizationId: t.organizationId, authorId: t.owner.id })).id;
    const [bob] = await db
      .insert(speakers)
      .values({ organizationId: t.organizationId, name: 'Bob Builder', normalizedName: 'bob' })
      .returning();
    const segment = (index: number, speakerLabel: string | null, text: string, speakerId?: string) => ({
      videoId,
      organizationId: t.organizationId,
      index,
      startSeconds: index * 10,
      endSeconds: index * 10 + 10,
      speakerLabel,
      speakerId: speakerId ?? null,
      text,
    });
    await db
      .insert(transcriptSegments)
      .values([
        segment(0, 'Alice', 'Welcome everyone.'),
        segment(1, 'Alice', 'First, the launch.'),
        segment(2, 'bob', 'We ship in May.', bob?.id),
        segment(3, null, '[music]'),
        segment(4, 'Alice', 'Great, thanks.'),
        segment(5, 'Alice', 'x'.repeat(3000)),
      ]);
  });

  const createClip = async (targetVideoId: string, startTime: number, endTime: number) => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/videos/${targetVideoId}/clips`,
      headers: t.member.headers,
      payload: { title: 'Excerpt', startTime, endTime },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };

  it('joins the overlapping segments in order, naming each speaker where their turn starts', async () => {
    const clip = await createClip(videoId, 5, 35);
    expect(clip.transcriptExcerpt).toBe(
      'Alice: Welcome everyone. First, the launch. Bob Builder: We ship in May. [music]',
    );
    const listed = await ctx().app.inject({
      method: 'GET',
      url: `/videos/${videoId}/clips`,
      headers: t.viewer.headers,
    });
    expect(listed.json().data).toContainEqual(clip);
  });

  it('follows the range when it moves, and ignores segments that only touch it', async () => {
    const clip = await createClip(videoId, 20, 30);
    expect(clip.transcriptExcerpt).toBe('Bob Builder: We ship in May.');
    const moved = await ctx().app.inject({
      method: 'PATCH',
      url: `/clips/${clip.id}`,
      headers: t.member.headers,
      payload: { startTime: 30, endTime: 50 },
    });
    expect(moved.json().transcriptExcerpt).toBe('[music] Alice: Great, thanks.');
  });

  it('caps a long excerpt at 2000 characters', async () => {
    const clip = await createClip(videoId, 45, 60);
    expect(clip.transcriptExcerpt).toHaveLength(2000);
    expect(clip.transcriptExcerpt).toMatch(/^Alice: Great, thanks\. x+…$/);
  });

  it('is empty past the transcript and null for a video without one', async () => {
    expect((await createClip(videoId, 100, 120)).transcriptExcerpt).toBe('');
    const silent = await createVideoRow(ctx().database.db, {
      organizationId: t.organizationId,
      authorId: t.owner.id,
    });
    expect((await createClip(silent.id, 0, 10)).transcriptExcerpt).toBeNull();
  });
});
