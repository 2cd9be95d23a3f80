import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';
import { clockTime, momentLink } from '../../lib/time.ts';

/** Lines picked in the transcript become a clip: click the first line, then the last. */
export function ClipMaker({
  videoId,
  range,
  onDone,
}: {
  videoId: string;
  range: { start: number; end: number } | null;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const clips = useQuery({
    queryKey: ['clips', videoId],
    queryFn: async () =>
      expectData(
        await api.GET('/videos/{id}/clips', { params: { path: { id: videoId }, query: { limit: 50 } } }),
      ).data,
  });
  const create = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/videos/{id}/clips', {
          params: { path: { id: videoId } },
          body: { title, startTime: range?.start ?? 0, endTime: range?.end ?? 0 },
        }),
      ),
    onSuccess: async () => {
      setTitle('');
      onDone();
      await queryClient.invalidateQueries({ queryKey: ['clips', videoId] });
    },
  });
  const submit = submitWith(() => create.mutate());
  return (
    <div className="clip-maker">
      {range ? (
        <form onSubmit={submit}>
          <p>
            Clip from {clockTime(range.start)} to {clockTime(range.end)}
          </p>
          <Field
            label="Clip title"
            required
            maxLength={200}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
          <FormError error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Create clip
          </button>
        </form>
      ) : (
        <p className="muted">Click the first line of the clip, then its last line.</p>
      )}
      {clips.data && clips.data.length > 0 && (
        <ul className="clips" aria-label="Clips">
          {clips.data.map((clip) => (
            <li key={clip.id}>
              <Link to={momentLink(videoId, clip.startTime)}>{clip.title}</Link> ({clockTime(clip.startTime)}–
              {clockTime(clip.endTime)})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
