import { useCallback, useEffect, useRef, useState } from 'react';

export type Playback = {
  time: number;
  playing: boolean;
  seek(seconds: number): void;
  toggle(): void;
};

/**
 * One clock for the player and the transcript. With a recording it follows the media element
 * (`attach` is its ref: the element may come and go, as when a recording is uploaded); without one
 * (a transcript only) it runs a clock of its own, so the transcript still plays, highlights and
 * seeks along a timeline.
 */
export function usePlayback(
  duration: number,
  start: number,
): Playback & { attach(element: HTMLMediaElement | null): void } {
  const [time, setTime] = useState(start);
  const [playing, setPlaying] = useState(false);
  const [element, attach] = useState<HTMLMediaElement | null>(null);
  const pendingSeek = useRef<number | null>(start > 0 ? start : null);

  useEffect(() => {
    if (!element) return;
    const onTime = () => setTime(element.currentTime);
    const onPlay = () => setPlaying(true);
    const onPause = () => setPlaying(false);
    // A deep link's second can only be applied once the media knows its length.
    const onMetadata = () => {
      if (pendingSeek.current !== null) element.currentTime = pendingSeek.current;
      pendingSeek.current = null;
    };
    element.addEventListener('timeupdate', onTime);
    element.addEventListener('seeked', onTime);
    element.addEventListener('play', onPlay);
    element.addEventListener('pause', onPause);
    element.addEventListener('loadedmetadata', onMetadata);
    if (element.readyState >= 1) onMetadata();
    return () => {
      element.removeEventListener('timeupdate', onTime);
      element.removeEventListener('seeked', onTime);
      element.removeEventListener('play', onPlay);
      element.removeEventListener('pause', onPause);
      element.removeEventListener('loadedmetadata', onMetadata);
    };
  }, [element]);

  // The transcript's own clock, when there is no media element.
  useEffect(() => {
    if (element || !playing) return;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      const elapsed = (now - last) / 1000;
      last = now;
      setTime((current) => {
        const next = current + elapsed;
        if (next >= duration) setPlaying(false);
        return Math.min(next, duration);
      });
    }, 250);
    return () => clearInterval(timer);
  }, [element, playing, duration]);

  const seek = useCallback(
    (seconds: number) => {
      const target = Math.max(0, Math.min(seconds, duration || seconds));
      if (element) {
        if (element.readyState >= 1) element.currentTime = target;
        else pendingSeek.current = target;
      }
      setTime(target);
    },
    [element, duration],
  );

  const toggle = useCallback(() => {
    if (!element) return setPlaying((value) => !value);
    if (element.paused) void element.play().catch(() => setPlaying(false));
    else element.pause();
  }, [element]);

  return { time, playing, seek, toggle, attach };
}

/** The index of the line being spoken at `time`: the last one that has started. */
export function currentLine(segments: readonly { start: number }[], time: number): number {
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((segments[middle] as { start: number }).start <= time + 0.05) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
