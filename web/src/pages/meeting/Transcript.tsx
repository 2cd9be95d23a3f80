import { useEffect, useRef } from 'react';
import { clockTime } from '../../lib/time.ts';
import { currentLine, type Playback } from './playback.ts';

type Segment = { start: number; end: number; speaker: string | null; text: string };

/**
 * The transcript, each line a button that seeks there; the line being spoken is marked (for
 * assistive technology too, with aria-current) and kept in view while playing.
 */
export function Transcript({
  segments,
  playback,
  selection,
  onLine,
}: {
  segments: Segment[];
  playback: Playback;
  /** Lines picked for a clip, shown as selected. */
  selection?: { from: number; to: number } | null;
  /** When given, a click picks the line instead of seeking. */
  onLine?: (index: number) => void;
}) {
  const current = currentLine(segments, playback.time);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (!playback.playing || current < 0) return;
    list.current
      ?.querySelector('[aria-current="true"]')
      ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [current, playback.playing]);

  return (
    <ol className="transcript" ref={list} aria-label="Transcript">
      {segments.map((segment, index) => {
        const selected = selection ? index >= selection.from && index <= selection.to : false;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are in time order and never reorder
          <li key={index}>
            <button
              type="button"
              className={`line${index === current ? ' current' : ''}${selected ? ' selected' : ''}`}
              aria-current={index === current ? 'true' : undefined}
              aria-pressed={onLine ? selected : undefined}
              onClick={() => (onLine ? onLine(index) : playback.seek(segment.start))}
            >
              <span className="stamp">{clockTime(segment.start)}</span>
              {segment.speaker && <span className="speaker">{segment.speaker}</span>}
              <span className="text">{segment.text}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}
