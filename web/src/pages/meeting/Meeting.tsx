import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ErrorState, Loading } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';
import { formatDate } from '../../lib/time.ts';
import { AddToCollection } from './AddToCollection.tsx';
import { ClipMaker } from './ClipMaker.tsx';
import { Comments } from './Comments.tsx';
import { KnowledgePanel } from './KnowledgePanel.tsx';
import { Player } from './Player.tsx';
import { usePlayback } from './playback.ts';
import { RecordingUpload, TranscriptStatus } from './RecordingUpload.tsx';
import { ShareLinks } from './ShareLinks.tsx';
import { Speakers } from './Speakers.tsx';
import { Transcript } from './Transcript.tsx';
import { TranscriptUpload } from './TranscriptUpload.tsx';

/** `?t=95` opens the meeting at 1:35. */
function startSecond(value: string | null) {
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

export function Meeting() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const video = useQuery({
    queryKey: ['video', id],
    queryFn: async () => expectData(await api.GET('/videos/{id}', { params: { path: { id } } })),
    // While a recording is transcribed, look again every few seconds.
    refetchInterval: (query) =>
      ['queued', 'processing'].includes(query.state.data?.transcriptStatus ?? '') ? 3000 : false,
  });
  const transcript = useQuery({
    // A new status (a transcription finished) is a new transcript to read.
    queryKey: ['transcript', id, video.data?.transcriptStatus],
    queryFn: async () => expectData(await api.GET('/videos/{id}/transcript', { params: { path: { id } } })),
  });

  if (video.isPending) return <Loading label="Opening the meeting" />;
  if (video.isError) return <ErrorState error={video.error} retry={() => video.refetch()} />;
  const segments = transcript.data?.segments ?? [];
  const lastEnd = segments.at(-1)?.end ?? 0;
  const duration = Math.max(video.data.durationSeconds ?? 0, lastEnd);

  return (
    <MeetingView
      key={id}
      video={video.data}
      duration={duration}
      segments={segments}
      transcriptState={transcript}
      start={startSecond(params.get('t'))}
    />
  );
}

function MeetingView({
  video,
  duration,
  segments,
  transcriptState,
  start,
}: {
  video: Schemas['Video'];
  duration: number;
  segments: Schemas['Transcript']['segments'];
  transcriptState: { isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  start: number;
}) {
  const { user, organizations } = useCurrent();
  const role = organizations.find((organization) => organization.id === video.organizationId)?.role;
  const canEdit = role === 'owner' || role === 'admin' || (video.authorId === user.id && role !== 'viewer');
  const mediaUrl = `${location.origin}/videos/${video.id}/media`;
  const playback = usePlayback(duration, start);
  const [params] = useSearchParams();
  const [clipping, setClipping] = useState(false);
  const [selection, setSelection] = useState<{ from: number; to: number } | null>(null);

  // A new ?t= on the same meeting (a citation clicked while here) moves the player there.
  const t = params.get('t');
  const { seek } = playback;
  useEffect(() => {
    if (t !== null) seek(startSecond(t));
  }, [t, seek]);

  const pick = (index: number) =>
    setSelection((current) =>
      !current || current.from !== current.to
        ? { from: index, to: index }
        : { from: Math.min(current.from, index), to: Math.max(current.from, index) },
    );
  const selectedRange = useMemo(() => {
    if (!selection) return null;
    const first = segments[selection.from];
    const last = segments[selection.to];
    return first && last ? { start: first.start, end: last.end } : null;
  }, [selection, segments]);

  return (
    <div className="meeting">
      <header className="page-header">
        <p className="crumbs">
          <Link to="/library">Library</Link>
        </p>
        <h1>{video.title}</h1>
        <p className="meta">
          {formatDate(video.recordedAt ?? video.createdAt)} · {video.duration} · {video.viewCount} views
        </p>
        {video.description && <p>{video.description}</p>}
        <p>
          <Link to={`/ask?video=${video.id}`}>Ask about this meeting</Link>
        </p>
        <AddToCollection
          videoId={video.id}
          organizationId={video.organizationId}
          collectionId={video.collectionId}
        />
      </header>
      <div className="meeting-grid">
        <div className="meeting-main">
          {canEdit && <RecordingUpload videoId={video.id} hasRecording={video.videoUrl === mediaUrl} />}
          <Player
            videoUrl={video.videoUrl}
            captionsUrl={`/videos/${video.id}/subtitles.vtt`}
            title={video.title}
            duration={duration}
            playback={playback}
            attach={playback.attach}
          />
          <section aria-labelledby="transcript-heading" className="panel">
            <div className="panel-header">
              <h2 id="transcript-heading">Transcript</h2>
              {segments.length > 0 && (
                <button
                  type="button"
                  className="secondary"
                  aria-pressed={clipping}
                  onClick={() => {
                    setClipping((value) => !value);
                    setSelection(null);
                  }}
                >
                  {clipping ? 'Done selecting' : 'Select lines for a clip'}
                </button>
              )}
            </div>
            {clipping && (
              <ClipMaker videoId={video.id} range={selectedRange} onDone={() => setSelection(null)} />
            )}
            <TranscriptStatus status={video.transcriptStatus} error={video.transcriptError} />
            {transcriptState.isPending ? (
              <Loading label="Loading the transcript" />
            ) : transcriptState.isError ? (
              <ErrorState error={transcriptState.error} retry={() => transcriptState.refetch()} />
            ) : segments.length === 0 ? (
              <TranscriptUpload videoId={video.id} />
            ) : (
              <Transcript
                segments={segments}
                playback={playback}
                selection={clipping ? selection : null}
                onLine={clipping ? pick : undefined}
              />
            )}
          </section>
        </div>
        <aside className="meeting-side">
          <KnowledgePanel videoId={video.id} seek={playback.seek} />
          <Speakers segments={segments} videoId={video.id} organizationId={video.organizationId} />
          <Comments videoId={video.id} playback={playback} />
          <ShareLinks videoId={video.id} />
        </aside>
      </div>
    </div>
  );
}
