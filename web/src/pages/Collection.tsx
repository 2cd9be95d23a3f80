import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { FormError } from '../components/Form.tsx';
import { ErrorState, Loading } from '../components/States.tsx';
import { api, expectData, type Schemas } from '../lib/api.ts';
import { moved } from '../lib/order.ts';

type Video = Schemas['CollectionWithVideos']['videos'][number];

function Progress({ progress }: { progress: Schemas['PlaylistProgress'] }) {
  const percent = Math.round(progress.percentComplete);
  return (
    <div className="progress">
      <progress max={100} value={percent} aria-label="Playlist progress" />
      <span role="status">
        {progress.completedCount} of {progress.totalCount} watched ({percent}%)
      </span>
      {progress.currentVideoId && percent < 100 && (
        <Link className="button" to={`/videos/${progress.currentVideoId}`}>
          Continue
        </Link>
      )}
    </div>
  );
}

/**
 * A folder or playlist: its meetings in order, reordered by dragging or with the Move buttons
 * (keyboard); a playlist also shows the viewer's own progress and ticks meetings off.
 */
export function Collection() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const collection = useQuery({
    queryKey: ['collection', id],
    queryFn: async () => expectData(await api.GET('/collections/{id}', { params: { path: { id } } })),
  });
  const isPlaylist = collection.data?.type === 'playlist';
  const progress = useQuery({
    queryKey: ['collection-progress', id],
    enabled: isPlaylist,
    queryFn: async () =>
      expectData(await api.GET('/collections/{id}/progress', { params: { path: { id } } })),
  });
  const [dragged, setDragged] = useState<number | null>(null);
  // A tick shows at once; the server's answer then replaces it (or the error says why not).
  const [ticking, setTicking] = useState<Record<string, boolean>>({});
  const reorder = useMutation({
    mutationFn: async (videoIds: string[]) =>
      expectData(await api.PUT('/collections/{id}/videos', { params: { path: { id } }, body: { videoIds } })),
    onSuccess: (updated) => queryClient.setQueryData(['collection', id], updated),
  });
  const mark = useMutation({
    mutationFn: async ({ videoId, completed }: { videoId: string; completed: boolean }) =>
      expectData(
        await api.POST('/collections/{id}/progress', {
          params: { path: { id } },
          body: { videoId, completed },
        }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(['collection-progress', id], updated);
      return queryClient.invalidateQueries({ queryKey: ['recommendations'] });
    },
    onSettled: (_data, _error, { videoId }) => setTicking(({ [videoId]: _settled, ...others }) => others),
  });
  const tick = (videoId: string, completed: boolean) => {
    setTicking((current) => ({ ...current, [videoId]: completed }));
    mark.mutate({ videoId, completed });
  };

  if (collection.isPending) return <Loading />;
  if (collection.isError) return <ErrorState error={collection.error} retry={() => collection.refetch()} />;
  const { videos } = collection.data;
  const move = (from: number, to: number) => {
    if (to < 0 || to >= videos.length || from === to) return;
    reorder.mutate(moved(videos, from, to).map((video) => video.id));
  };
  const drop = (event: DragEvent, to: number) => {
    event.preventDefault();
    if (dragged !== null) move(dragged, to);
    setDragged(null);
  };
  const completed = new Set(progress.data?.completedVideoIds ?? []);

  const row = (video: Video, index: number) => (
    <li
      key={video.id}
      className={`collection-item${dragged === index ? ' dragging' : ''}`}
      draggable
      onDragStart={() => setDragged(index)}
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => drop(event, index)}
    >
      <span className="order" aria-hidden="true">
        ⠿ {index + 1}
      </span>
      {isPlaylist && (
        <input
          type="checkbox"
          aria-label={`Watched: ${video.title}`}
          checked={ticking[video.id] ?? completed.has(video.id)}
          onChange={(event) => tick(video.id, event.target.checked)}
        />
      )}
      <Link to={`/videos/${video.id}`}>{video.title}</Link>
      <span className="muted">{video.duration}</span>
      <span className="move">
        <button
          type="button"
          className="secondary"
          aria-label={`Move ${video.title} up`}
          disabled={index === 0 || reorder.isPending}
          onClick={() => move(index, index - 1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Move ${video.title} down`}
          disabled={index === videos.length - 1 || reorder.isPending}
          onClick={() => move(index, index + 1)}
        >
          ↓
        </button>
      </span>
    </li>
  );

  return (
    <div className="page">
      <header className="page-header">
        <p className="crumbs">
          <Link to="/library">Library</Link>
        </p>
        <h1>{collection.data.name}</h1>
        <p className="meta">
          {collection.data.type} · {videos.length} meetings
        </p>
      </header>
      {isPlaylist && progress.data && <Progress progress={progress.data} />}
      <FormError error={reorder.error ?? mark.error} />
      <section className="panel" aria-label="Meetings in order">
        {videos.length === 0 ? (
          <p className="muted">Empty. Open a meeting and use "Add to a collection".</p>
        ) : (
          <ol className="collection-list">{videos.map(row)}</ol>
        )}
      </section>
    </div>
  );
}
