import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Field, FormError, InlineSelect, submitWith } from '../components/Form.tsx';
import { Pager } from '../components/Pager.tsx';
import { QueryView } from '../components/States.tsx';
import { VideoCard } from '../components/VideoCard.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { clockTime, lastCueSeconds } from '../lib/time.ts';
import { Channels, Collections, SeriesList } from './LibraryGroups.tsx';

const SORTS = [
  { value: '-createdAt', label: 'Newest' },
  { value: 'createdAt', label: 'Oldest' },
  { value: 'title', label: 'Title' },
  { value: '-viewCount', label: 'Most viewed' },
] as const;
type Sort = (typeof SORTS)[number]['value'];

/** A new meeting: a title and, optionally, its transcript file (WebVTT, SRT or text). */
function NewMeeting({ organizationId }: { organizationId: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [videoUrl, setVideoUrl] = useState('');
  const create = useMutation({
    mutationFn: async () => {
      const transcript = file ? await file.text() : null;
      return expectData(
        await api.POST('/videos', {
          body: {
            title,
            duration: clockTime(transcript ? lastCueSeconds(transcript) : 0),
            organizationId,
            transcript,
            videoUrl: videoUrl || null,
          },
        }),
      );
    },
    onSuccess: async (video) => {
      await queryClient.invalidateQueries({ queryKey: ['videos'] });
      navigate(`/videos/${video.id}`);
    },
  });
  const submit = submitWith(() => create.mutate());
  return (
    <details className="panel">
      <summary>Add a meeting</summary>
      <form onSubmit={submit}>
        <Field
          label="Title"
          required
          maxLength={500}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
        />
        <Field
          label="Transcript file (optional)"
          type="file"
          accept=".vtt,.srt,.txt,text/vtt,text/plain"
          hint="WebVTT, SRT, or text with “Name: …” lines."
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
        <Field
          label="Recording URL (optional)"
          type="url"
          placeholder="https://…/meeting.mp4"
          value={videoUrl}
          onChange={(e) => setVideoUrl(e.target.value)}
        />
        <FormError error={create.error} />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add meeting'}
        </button>
      </form>
    </details>
  );
}

function Videos({ organizationId }: { organizationId: string }) {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1') || 1;
  const sort = (SORTS.find((item) => item.value === params.get('sort'))?.value ?? '-createdAt') as Sort;
  const videos = useQuery({
    queryKey: ['videos', organizationId, page, sort],
    queryFn: async () =>
      expectData(await api.GET('/videos', { params: { query: { organizationId, page, limit: 24, sort } } })),
    placeholderData: (previous) => previous,
  });
  const set = (changes: Record<string, string>) =>
    setParams((current) => ({ ...Object.fromEntries(current), ...changes }));
  return (
    <section aria-labelledby="videos-heading">
      <div className="panel-header">
        <h2 id="videos-heading">Meetings</h2>
        <InlineSelect label="Sort" value={sort} onChange={(value) => set({ sort: value, page: '1' })}>
          {SORTS.map((item) => (
            <option key={item.value} value={item.value}>
              {item.label}
            </option>
          ))}
        </InlineSelect>
      </div>
      <QueryView
        query={videos}
        isEmpty={(data) => data.data.length === 0}
        empty="No meetings yet: add one above."
      >
        {(data) => (
          <>
            <ul className="cards">
              {data.data.map((video) => (
                <VideoCard key={video.id} video={video} />
              ))}
            </ul>
            <Pager
              page={page}
              totalPages={data.pagination.totalPages}
              onPage={(next) => set({ page: String(next) })}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}

export function Library() {
  const { organization } = useCurrent();
  return (
    <div className="page">
      <header className="page-header">
        <h1>Library</h1>
      </header>
      <NewMeeting organizationId={organization.id} />
      <Videos organizationId={organization.id} />
      <div className="columns three">
        <Channels organizationId={organization.id} />
        <SeriesList organizationId={organization.id} />
        <Collections organizationId={organization.id} />
      </div>
    </div>
  );
}
