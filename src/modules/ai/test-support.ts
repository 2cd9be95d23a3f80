import type { Source } from './engine.ts';

/**
 * A source as retrieval gives it: `turns` from segment `first` on, 10 s each, centred on `best`;
 * by default of one meeting, held on January 5, 2026.
 */
export function sourceOf(
  number: number,
  first: number,
  best: number,
  said: Array<{ speaker: string; text: string }>,
  meeting = { videoId: '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f0a01', recordedAt: new Date('2026-01-05T09:00:00Z') },
): Source {
  const turns = said.map((turn, at) => ({
    ...turn,
    index: first + at,
    start: (first + at) * 10,
    end: (first + at) * 10 + 10,
  }));
  return {
    number,
    ...meeting,
    videoTitle: 'Committee',
    firstSegmentIndex: first,
    lastSegmentIndex: first + said.length - 1,
    bestSegmentIndex: best,
    startSeconds: first * 10,
    endSeconds: (first + said.length) * 10,
    speakerNames: [...new Set(said.map((turn) => turn.speaker))],
    text: turns.map((turn) => `${turn.speaker}: ${turn.text}`).join('\n'),
    turns,
  };
}
