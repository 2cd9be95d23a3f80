import { describe, expect, it } from 'vitest';
import { buildChunks, CHUNK_MAX_WORDS, CHUNK_MIN_WORDS, type Chunk, type ChunkSource } from './chunks.ts';

const ALICE_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f0001';
const BOB_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f0002';
const CAROL_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f0003';
const ids: Record<string, string> = { Alice: ALICE_ID, Bob: BOB_ID, Carol: CAROL_ID };

/** `count` distinct words, tagged so that a test can tell whose words ended up where. */
const words = (count: number, tag: string) =>
  Array.from({ length: count }, (_, at) => `${tag}${at + 1}`).join(' ');

/** `count` sentences of seven words, each ending with a full stop. */
const sentences = (count: number, tag: string) =>
  Array.from({ length: count }, (_, at) => `${words(6, `${tag}s${at + 1}w`)} end${at + 1}.`);

/** Segments back to back, ten seconds each unless given. */
function transcript(turns: Array<{ speaker: string | null; text: string; seconds?: number }>): ChunkSource[] {
  let clock = 0;
  return turns.map((turn, index) => {
    const start = clock;
    clock += turn.seconds ?? 10;
    return {
      index,
      start,
      end: clock,
      speaker: turn.speaker,
      speakerId: turn.speaker === null ? null : (ids[turn.speaker] ?? null),
      text: turn.text,
    };
  });
}

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The words of a chunk, without the `Speaker:` labels that start its lines. */
const spokenWords = (chunk: Chunk) =>
  chunk.text
    .split('\n')
    .map((line) => line.replace(/^(Alice|Bob|Carol|Guest): /, ''))
    .join(' ');

describe('buildChunks', () => {
  it('returns no chunks for an empty transcript or one without words', () => {
    expect(buildChunks([])).toStrictEqual([]);
    expect(
      buildChunks(
        transcript([
          { speaker: 'Alice', text: '  ' },
          { speaker: null, text: '' },
        ]),
      ),
    ).toStrictEqual([]);
  });

  it('cuts many short turns into passages of 150–300 words that cover every segment once, in order', () => {
    const lengths = [12, 35, 8, 50, 20, 27, 3, 44];
    const speakers = ['Alice', 'Bob', 'Carol'];
    const segments = transcript(
      Array.from({ length: 60 }, (_, at) => ({
        speaker: speakers[at % 3] as string,
        text: words(lengths[at % lengths.length] as number, `t${at}w`),
      })),
    );
    const chunks = buildChunks(segments);

    expect(chunks.length).toBeGreaterThan(5);
    const last = chunks.at(-1) as Chunk;
    for (const chunk of chunks) {
      expect(chunk.wordCount).toBeLessThanOrEqual(CHUNK_MAX_WORDS);
      if (chunk !== last) expect(chunk.wordCount).toBeGreaterThanOrEqual(CHUNK_MIN_WORDS);
    }
    const beforeLast = chunks.at(-2) as Chunk;
    expect(last.wordCount >= CHUNK_MIN_WORDS || beforeLast.wordCount + last.wordCount > CHUNK_MAX_WORDS).toBe(
      true,
    );

    expect(chunks.map((chunk) => chunk.index)).toStrictEqual(chunks.map((_, at) => at));
    expect(chunks[0]?.firstSegmentIndex).toBe(0);
    expect(last.lastSegmentIndex).toBe(59);
    chunks.forEach((chunk, at) => {
      if (at > 0) expect(chunk.firstSegmentIndex).toBe((chunks[at - 1] as Chunk).lastSegmentIndex + 1);
      const covered = segments.slice(chunk.firstSegmentIndex, chunk.lastSegmentIndex + 1);
      expect(chunk.startSeconds).toBe(covered[0]?.start);
      expect(chunk.endSeconds).toBe(covered.at(-1)?.end);
      expect(chunk.wordCount).toBe(covered.reduce((sum, segment) => sum + countWords(segment.text), 0));
      expect(spokenWords(chunk)).toBe(covered.map((segment) => segment.text).join(' '));
    });
  });

  it('keeps a turn of up to 300 words whole, even when the passage before it stays short', () => {
    const segments = transcript([
      { speaker: 'Alice', text: words(100, 'a') },
      { speaker: 'Bob', text: words(280, 'b') },
      { speaker: 'Carol', text: words(120, 'c') },
    ]);
    expect(buildChunks(segments)).toStrictEqual([
      {
        index: 0,
        firstSegmentIndex: 0,
        lastSegmentIndex: 0,
        startSeconds: 0,
        endSeconds: 10,
        speakerNames: ['Alice'],
        speakerIds: [ALICE_ID],
        text: `Alice: ${words(100, 'a')}`,
        wordCount: 100,
      },
      {
        index: 1,
        firstSegmentIndex: 1,
        lastSegmentIndex: 1,
        startSeconds: 10,
        endSeconds: 20,
        speakerNames: ['Bob'],
        speakerIds: [BOB_ID],
        text: `Bob: ${words(280, 'b')}`,
        wordCount: 280,
      },
      // 280 + 120 would overflow: the short last passage stays on its own.
      {
        index: 2,
        firstSegmentIndex: 2,
        lastSegmentIndex: 2,
        startSeconds: 20,
        endSeconds: 30,
        speakerNames: ['Carol'],
        speakerIds: [CAROL_ID],
        text: `Carol: ${words(120, 'c')}`,
        wordCount: 120,
      },
    ]);
  });

  it('cuts a 700-word turn at sentence ends into pieces of at most 300 words, with interpolated times', () => {
    const turn = sentences(100, 'a');
    const segments = transcript([
      { speaker: 'Bob', text: words(50, 'b'), seconds: 20 },
      { speaker: 'Alice', text: turn.join(' '), seconds: 140 },
      { speaker: 'Carol', text: words(50, 'c'), seconds: 20 },
    ]);
    // 42 sentences of 7 words are 294: a 43rd would pass 300. Times are shares of the turn's 140 s.
    const piece = (from: number, to: number) => turn.slice(from, to).join(' ');
    expect(buildChunks(segments)).toStrictEqual([
      {
        index: 0,
        firstSegmentIndex: 0,
        lastSegmentIndex: 0,
        startSeconds: 0,
        endSeconds: 20,
        speakerNames: ['Bob'],
        speakerIds: [BOB_ID],
        text: `Bob: ${words(50, 'b')}`,
        wordCount: 50,
      },
      {
        index: 1,
        firstSegmentIndex: 1,
        lastSegmentIndex: 1,
        startSeconds: 20,
        endSeconds: 78.8,
        speakerNames: ['Alice'],
        speakerIds: [ALICE_ID],
        text: `Alice: ${piece(0, 42)}`,
        wordCount: 294,
      },
      {
        index: 2,
        firstSegmentIndex: 1,
        lastSegmentIndex: 1,
        startSeconds: 78.8,
        endSeconds: 137.6,
        speakerNames: ['Alice'],
        speakerIds: [ALICE_ID],
        text: `Alice: ${piece(42, 84)}`,
        wordCount: 294,
      },
      {
        index: 3,
        firstSegmentIndex: 1,
        lastSegmentIndex: 2,
        startSeconds: 137.6,
        endSeconds: 180,
        speakerNames: ['Alice', 'Carol'],
        speakerIds: [ALICE_ID, CAROL_ID],
        text: `Alice: ${piece(84, 100)}\nCarol: ${words(50, 'c')}`,
        wordCount: 162,
      },
    ]);
  });

  it('cuts a sentence longer than 300 words at words', () => {
    const text = words(650, 'w');
    const chunks = buildChunks(transcript([{ speaker: 'Alice', text, seconds: 65 }]));
    expect(
      chunks.map(({ startSeconds, endSeconds, wordCount }) => ({ startSeconds, endSeconds, wordCount })),
    ).toStrictEqual([
      { startSeconds: 0, endSeconds: 30, wordCount: 300 },
      { startSeconds: 30, endSeconds: 60, wordCount: 300 },
      { startSeconds: 60, endSeconds: 65, wordCount: 50 },
    ]);
    expect(chunks.map((chunk) => chunk.text.replace('Alice: ', '')).join(' ')).toBe(text);
  });

  it('writes one `Speaker: words` line per turn, joining consecutive segments of one speaker', () => {
    const segments = transcript([
      { speaker: 'Bob', text: 'Morning all.' },
      { speaker: 'Bob', text: 'Shall we start?' },
      { speaker: 'Guest', text: 'Happy to.' },
      { speaker: 'Alice', text: 'Yes.' },
      { speaker: 'Bob', text: 'Good.' },
      { speaker: 'Alice', text: 'Agreed.' },
    ]);
    expect(buildChunks(segments)).toStrictEqual([
      {
        index: 0,
        firstSegmentIndex: 0,
        lastSegmentIndex: 5,
        startSeconds: 0,
        endSeconds: 60,
        // A label that did not become a speaker is named but has no id.
        speakerNames: ['Bob', 'Guest', 'Alice'],
        speakerIds: [BOB_ID, ALICE_ID],
        text: 'Bob: Morning all. Shall we start?\nGuest: Happy to.\nAlice: Yes.\nBob: Good.\nAlice: Agreed.',
        wordCount: 10,
      },
    ]);
  });

  it('writes segments without a speaker unlabelled, and names no speaker for them', () => {
    const segments = transcript([
      { speaker: null, text: 'Recording starts.' },
      { speaker: null, text: 'Silence.' },
      { speaker: 'Carol', text: 'Hello?' },
      { speaker: null, text: 'Applause.' },
    ]);
    const [chunk] = buildChunks(segments);
    expect(chunk?.text).toBe('Recording starts. Silence.\nCarol: Hello?\nApplause.');
    expect(chunk?.speakerNames).toStrictEqual(['Carol']);
    expect(chunk?.speakerIds).toStrictEqual([CAROL_ID]);

    const unlabelled = buildChunks(transcript([{ speaker: null, text: 'Only narration here.' }]));
    expect(unlabelled).toStrictEqual([
      {
        index: 0,
        firstSegmentIndex: 0,
        lastSegmentIndex: 0,
        startSeconds: 0,
        endSeconds: 10,
        speakerNames: [],
        speakerIds: [],
        text: 'Only narration here.',
        wordCount: 3,
      },
    ]);
  });

  it('merges a short last passage into the one before when both fit in 300 words', () => {
    const merged = buildChunks(
      transcript([
        { speaker: 'Alice', text: words(160, 'a') },
        { speaker: 'Bob', text: words(100, 'b') },
      ]),
    );
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({
      firstSegmentIndex: 0,
      lastSegmentIndex: 1,
      startSeconds: 0,
      endSeconds: 20,
      speakerNames: ['Alice', 'Bob'],
      text: `Alice: ${words(160, 'a')}\nBob: ${words(100, 'b')}`,
      wordCount: 260,
    });

    const apart = buildChunks(
      transcript([
        { speaker: 'Alice', text: words(200, 'a') },
        { speaker: 'Bob', text: words(120, 'b') },
      ]),
    );
    expect(
      apart.map((chunk) => [chunk.firstSegmentIndex, chunk.lastSegmentIndex, chunk.wordCount]),
    ).toStrictEqual([
      [0, 0, 200],
      [1, 1, 120],
    ]);
  });
});
