import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { FormError, submitWith } from '../../components/Form.tsx';
import { QueryView } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { clockTime, formatDateTime } from '../../lib/time.ts';
import type { Playback } from './playback.ts';

const REACTIONS = ['👍', '🎉', '❓'];

function useCommentsChanged(videoId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['comments', videoId] });
}

function CommentForm({
  videoId,
  playback,
  parentId,
  label,
}: {
  videoId: string;
  playback: Playback;
  parentId?: string;
  label: string;
}) {
  const id = useId();
  const [body, setBody] = useState('');
  const [atTime, setAtTime] = useState(!parentId);
  const changed = useCommentsChanged(videoId);
  const create = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/videos/{id}/comments', {
          params: { path: { id: videoId } },
          body: { body, parentId: parentId ?? null, timestamp: atTime ? Math.floor(playback.time) : null },
        }),
      ),
    onSuccess: () => {
      setBody('');
      return changed();
    },
  });
  const submit = submitWith(() => {
    if (body.trim()) create.mutate();
  });
  return (
    <form className="comment-form" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <textarea
        id={id}
        value={body}
        placeholder={label}
        rows={2}
        maxLength={5000}
        onChange={(e) => setBody(e.target.value)}
      />
      {!parentId && (
        <label className="inline">
          <input type="checkbox" checked={atTime} onChange={(e) => setAtTime(e.target.checked)} /> at{' '}
          {clockTime(playback.time)}
        </label>
      )}
      <FormError error={create.error} />
      <button type="submit" disabled={create.isPending || !body.trim()}>
        {parentId ? 'Reply' : 'Comment'}
      </button>
    </form>
  );
}

function CommentBody({
  comment,
  videoId,
  seek,
}: {
  comment: Schemas['Comment'] | Schemas['CommentThread'];
  videoId: string;
  seek: (seconds: number) => void;
}) {
  const changed = useCommentsChanged(videoId);
  const react = useMutation({
    mutationFn: async (emoji: string) =>
      expectData(
        await api.POST('/comments/{id}/reactions', { params: { path: { id: comment.id } }, body: { emoji } }),
      ),
    onSuccess: changed,
  });
  return (
    <div className="comment">
      <p className="meta">
        <strong>{comment.author?.name ?? 'Someone'}</strong> · {formatDateTime(comment.createdAt)}
        {comment.timestamp !== null && (
          <>
            {' · '}
            <button type="button" className="moment" onClick={() => seek(comment.timestamp as number)}>
              {clockTime(comment.timestamp)}
            </button>
          </>
        )}
      </p>
      <p>{comment.isDeleted ? <em>Deleted</em> : comment.body}</p>
      <div className="reactions">
        {REACTIONS.map((emoji) => {
          const reaction = comment.reactions.find((item) => item.emoji === emoji);
          return (
            <button
              key={emoji}
              type="button"
              className={`reaction${reaction?.reacted ? ' active' : ''}`}
              aria-pressed={reaction?.reacted ?? false}
              aria-label={`React ${emoji}`}
              onClick={() => react.mutate(emoji)}
            >
              {emoji} {reaction?.count ?? ''}
            </button>
          );
        })}
      </div>
    </div>
  );
}

/** Comments anchored to moments of the meeting, with replies and reactions. */
export function Comments({ videoId, playback }: { videoId: string; playback: Playback }) {
  const comments = useQuery({
    queryKey: ['comments', videoId],
    queryFn: async () =>
      expectData(
        await api.GET('/videos/{id}/comments', { params: { path: { id: videoId }, query: { limit: 100 } } }),
      ).data,
  });
  return (
    <section className="panel" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      <CommentForm videoId={videoId} playback={playback} label="Add a comment" />
      <QueryView query={comments} isEmpty={(data) => data.length === 0} empty="No comments yet.">
        {(threads) => (
          <ul className="comments">
            {threads.map((thread) => (
              <li key={thread.id}>
                <CommentBody comment={thread} videoId={videoId} seek={playback.seek} />
                {thread.replies.length > 0 && (
                  <ul className="replies">
                    {thread.replies.map((reply) => (
                      <li key={reply.id}>
                        <CommentBody comment={reply} videoId={videoId} seek={playback.seek} />
                      </li>
                    ))}
                  </ul>
                )}
                <details>
                  <summary>Reply</summary>
                  <CommentForm
                    videoId={videoId}
                    playback={playback}
                    parentId={thread.id}
                    label="Write a reply"
                  />
                </details>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
