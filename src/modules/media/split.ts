import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a chunk sent for transcription is encoded as: speech-grade MP3, mono 16 kHz at 32 kbit/s. */
export const CHUNK_BYTES_PER_SECOND = 4_000;

/**
 * The ffmpeg that splits recordings: FFMPEG_PATH when set, else the static build the
 * @ffmpeg-installer package ships for this platform, else none (splitting is then refused).
 */
export function ffmpegFor(configured: string | undefined): string | null {
  if (configured) return configured;
  try {
    return (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch {
    return null;
  }
}

/** Where the recording is silent (ffmpeg's silencedetect: below -30 dB for a quarter second). */
export async function silencesIn(
  ffmpeg: string,
  file: string,
): Promise<Array<{ start: number; end: number }>> {
  const { stderr } = await run(
    ffmpeg,
    ['-hide_banner', '-nostats', '-i', file, '-af', 'silencedetect=noise=-30dB:d=0.25', '-f', 'null', '-'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const silences: Array<{ start: number; end: number }> = [];
  let start: number | null = null;
  for (const line of stderr.split('\n')) {
    const began = /silence_start: (-?[\d.]+)/.exec(line);
    if (began) start = Math.max(0, Number(began[1]));
    const ended = /silence_end: ([\d.]+)/.exec(line);
    if (ended && start !== null) {
      silences.push({ start, end: Number(ended[1]) });
      start = null;
    }
  }
  return silences;
}

/**
 * Where to cut a recording into chunks no longer than `longest` seconds: each cut in the middle of
 * the last silence that ends the chunk in time (no word is cut in two), or at the limit when the
 * stretch has no silence. Pure; returns the chunks' [start, end) in order.
 */
export function chunksOf(duration: number, silences: Array<{ start: number; end: number }>, longest: number) {
  const chunks: Array<{ start: number; end: number }> = [];
  let start = 0;
  while (duration - start > longest) {
    const limit = start + longest;
    const pause = silences
      .filter((silence) => silence.start > start && (silence.start + silence.end) / 2 <= limit)
      .at(-1);
    const end = pause ? (pause.start + pause.end) / 2 : limit;
    chunks.push({ start, end });
    start = end;
  }
  chunks.push({ start, end: duration });
  return chunks;
}

/** One chunk of the recording, re-encoded for transcription. */
export async function encodeChunk(
  ffmpeg: string,
  file: string,
  chunk: { start: number; end: number },
  output: string,
) {
  await run(ffmpeg, [
    '-hide_banner',
    '-nostats',
    '-y',
    '-ss',
    String(chunk.start),
    '-t',
    String(chunk.end - chunk.start),
    '-i',
    file,
    '-vn',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-b:a',
    '32k',
    '-f',
    'mp3',
    output,
  ]);
}
