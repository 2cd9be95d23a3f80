import { clockTime } from '../../lib/time.ts';
import type { Playback } from './playback.ts';

const AUDIO_FILE = /\.(mp3|m4a|wav|ogg|oga|flac|aac)(\?|$)/i;

/**
 * The recording when there is one (with the transcript as its captions track), else a timeline
 * that plays, shows the position and seeks.
 */
export function Player({
  videoUrl,
  captionsUrl,
  title,
  duration,
  playback,
  attach,
}: {
  videoUrl: string | null;
  /** WebVTT captions; null where the viewer cannot fetch them (a shared page). */
  captionsUrl: string | null;
  title: string;
  duration: number;
  playback: Playback;
  /** The media element's ref: the playback clock follows it. */
  attach: (element: HTMLMediaElement | null) => void;
}) {
  const isAudio = videoUrl ? AUDIO_FILE.test(videoUrl) : false;
  return (
    <section className="player" aria-label="Player">
      {videoUrl &&
        (isAudio ? (
          <audio ref={attach} src={videoUrl} controls preload="metadata" aria-label={title}>
            <track kind="captions" src={captionsUrl ?? undefined} srcLang="en" label="Transcript" />
          </audio>
        ) : (
          <video ref={attach} src={videoUrl} controls preload="metadata" aria-label={title}>
            <track kind="captions" src={captionsUrl ?? undefined} srcLang="en" label="Transcript" />
          </video>
        ))}
      {!videoUrl && (
        <div className="timeline">
          <button type="button" onClick={playback.toggle} aria-label={playback.playing ? 'Pause' : 'Play'}>
            {playback.playing ? '❚❚' : '▶'}
          </button>
          <input
            type="range"
            min={0}
            max={Math.max(duration, 1)}
            step={1}
            value={Math.floor(playback.time)}
            onChange={(event) => playback.seek(Number(event.target.value))}
            aria-label="Position"
            aria-valuetext={clockTime(playback.time)}
          />
          <output aria-live="off" data-testid="position">
            {clockTime(playback.time)} / {clockTime(duration)}
          </output>
        </div>
      )}
      {videoUrl && (
        <p className="position" data-testid="position">
          {clockTime(playback.time)} / {clockTime(duration)}
        </p>
      )}
    </section>
  );
}
