import { eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Tx } from '../../db/client.ts';
import { transcriptChunks } from '../../db/schema/index.ts';

/** A transcript segment as chunking needs it: its speaker under the name to index. */
export type ChunkSource = {
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  speakerId: string | null;
  text: string;
};

export type Chunk = {
  index: number;
  firstSegmentIndex: number;
  lastSegmentIndex: number;
  startSeconds: number;
  endSeconds: number;
  speakerNames: string[];
  speakerIds: string[];
  /** The passage as turns, `Speaker: words` per line, so that a reader (or a model) knows who said what. */
  text: string;
  wordCount: number;
};

/**
 * A passage's vector (alias `c`), copied into memory (concatenating nothing) in a step of its own
 * (`offset 0`): it is stored out of line (≈ 2 kB, toasted), and a query that tests and ranks it
 * once per term would otherwise fetch it from TOAST each time. Search ranking and QA retrieval select it so.
 */
export const VECTOR_IN_MEMORY = sql.raw(`c.search || ''::tsvector as search`);
export const CHUNK_MIN_WORDS = 150;
export const CHUNK_MAX_WORDS = 300;

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** A part of one segment: the whole of it, or, for a turn longer than a chunk, a run of its sentences. */
type Piece = ChunkSource & { words: number };

/**
 * A turn longer than a chunk is cut at sentence ends (a sentence longer than a chunk, at words);
 * each part gets the share of the turn's time its words take.
 */
function piecesOf(segment: ChunkSource): Piece[] {
  const words = wordsIn(segment.text);
  if (words <= CHUNK_MAX_WORDS) return [{ ...segment, words }];
  const sentences = segment.text.split(/(?<=[.!?])\s+/).flatMap((sentence) => {
    const sentenceWords = sentence.split(/\s+/).filter(Boolean);
    const parts: string[] = [];
    for (let at = 0; at < sentenceWords.length; at += CHUNK_MAX_WORDS) {
      parts.push(sentenceWords.slice(at, at + CHUNK_MAX_WORDS).join(' '));
    }
    return parts;
  });
  const groups: string[][] = [[]];
  let groupWords = 0;
  for (const sentence of sentences) {
    const count = wordsIn(sentence);
    if (groupWords + count > CHUNK_MAX_WORDS && groupWords > 0) {
      groups.push([]);
      groupWords = 0;
    }
    groups.at(-1)?.push(sentence);
    groupWords += count;
  }
  const duration = segment.end - segment.start;
  let before = 0;
  return groups.map((group) => {
    const text = group.join(' ');
    const count = wordsIn(text);
    const start = segment.start + (duration * before) / words;
    before += count;
    const end = segment.start + (duration * before) / words;
    return { ...segment, text, words: count, start: round(start), end: round(end) };
  });
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * Cuts a transcript into passages of about 150–300 words without splitting a speaker turn:
 * pieces are added while the passage stays within 300 words, and a passage closes once it has
 * 150 or the next piece would overflow it. A short last passage joins the one before when both fit.
 */
export function buildChunks(segments: ChunkSource[]): Chunk[] {
  const groups: Piece[][] = [];
  let current: Piece[] = [];
  let currentWords = 0;
  for (const piece of segments.flatMap(piecesOf)) {
    if (piece.words === 0) continue;
    if (
      current.length > 0 &&
      (currentWords >= CHUNK_MIN_WORDS || currentWords + piece.words > CHUNK_MAX_WORDS)
    ) {
      groups.push(current);
      current = [];
      currentWords = 0;
    }
    current.push(piece);
    currentWords += piece.words;
  }
  if (current.length > 0) {
    const previous = groups.at(-1);
    const previousWords = previous?.reduce((sum, piece) => sum + piece.words, 0) ?? 0;
    if (previous && currentWords < CHUNK_MIN_WORDS && previousWords + currentWords <= CHUNK_MAX_WORDS) {
      previous.push(...current);
    } else {
      groups.push(current);
    }
  }
  return groups.map((pieces, index) => toChunk(pieces, index));
}

function toChunk(pieces: Piece[], index: number): Chunk {
  const first = pieces[0] as Piece;
  const last = pieces.at(-1) as Piece;
  const speakerNames: string[] = [];
  const speakerIds: string[] = [];
  const lines: string[] = [];
  let previousSpeaker: string | null | undefined;
  for (const piece of pieces) {
    if (piece.speaker !== null && !speakerNames.includes(piece.speaker)) speakerNames.push(piece.speaker);
    if (piece.speakerId !== null && !speakerIds.includes(piece.speakerId)) speakerIds.push(piece.speakerId);
    if (piece.speaker === previousSpeaker && lines.length > 0) {
      lines[lines.length - 1] += ` ${piece.text}`;
    } else {
      lines.push(piece.speaker === null ? piece.text : `${piece.speaker}: ${piece.text}`);
    }
    previousSpeaker = piece.speaker;
  }
  return {
    index,
    firstSegmentIndex: first.index,
    lastSegmentIndex: last.index,
    startSeconds: first.start,
    endSeconds: last.end,
    speakerNames,
    speakerIds,
    text: lines.join('\n'),
    wordCount: pieces.reduce((sum, piece) => sum + piece.words, 0),
  };
}

/** Rows per INSERT: one JSON parameter each. */
const CHUNK_BATCH = 2_000;

/**
 * Holds a video's row until the transaction ends, before its passages are read to be rewritten:
 * two rewrites at once (two speakers of one meeting renamed together) would each cut passages
 * under the names they saw and delete the passages they saw, the second colliding with the first's
 * or writing a name the first had just changed. Comments, clips and views still come and go.
 */
export async function holdVideoPassages(tx: Tx, videoId: string) {
  await tx.execute(sql`SELECT 1 FROM videos WHERE id = ${videoId} FOR NO KEY UPDATE`);
}

/**
 * Replaces a video's chunks (an empty list removes them). Runs in the caller's transaction, which
 * holds the video's row (a transcript write locks it; see holdVideoPassages).
 */
export async function writeChunks(tx: Tx, video: { id: string; organizationId: string }, chunks: Chunk[]) {
  await tx.delete(transcriptChunks).where(eq(transcriptChunks.videoId, video.id));
  for (let offset = 0; offset < chunks.length; offset += CHUNK_BATCH) {
    const rows = chunks.slice(offset, offset + CHUNK_BATCH).map((chunk) => ({ id: uuidv7(), ...chunk }));
    await tx.execute(sql`
      INSERT INTO transcript_chunks (id, video_id, organization_id, index, first_segment_index, last_segment_index,
        start_seconds, end_seconds, speaker_names, speaker_ids, text, word_count)
      SELECT r.id, ${video.id}, ${video.organizationId}, r.index, r."firstSegmentIndex", r."lastSegmentIndex",
        r."startSeconds", r."endSeconds",
        ARRAY(SELECT json_array_elements_text(r."speakerNames")),
        ARRAY(SELECT json_array_elements_text(r."speakerIds"))::uuid[],
        r.text, r."wordCount"
      FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, index int, "firstSegmentIndex" int,
        "lastSegmentIndex" int, "startSeconds" float8, "endSeconds" float8, "speakerNames" json,
        "speakerIds" json, text text, "wordCount" int)`);
  }
}
