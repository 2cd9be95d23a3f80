import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { AuthCard, Field, FormError, submitWith } from '../components/Form.tsx';
import { ErrorState, Loading } from '../components/States.tsx';
import { api, expectData, KnowledgeHubError } from '../lib/api.ts';
import { Player } from './meeting/Player.tsx';
import { usePlayback } from './meeting/playback.ts';
import { Transcript } from './meeting/Transcript.tsx';

type Shared = NonNullable<Awaited<ReturnType<typeof fetchShared>>>;

async function fetchShared(token: string, accessToken: string | null) {
  return expectData(
    await api.GET('/share/{token}', {
      params: { path: { token }, header: accessToken ? { 'x-share-token': accessToken } : {} },
    }),
  );
}

/**
 * A recording the service stores plays from the link's own media address; a `<video>` cannot send
 * headers, so a password link's access token rides in the query.
 */
export function playableUrl(videoUrl: string | null, accessToken: string | null, origin: string) {
  if (!videoUrl || !accessToken || !videoUrl.startsWith(`${origin}/share/`)) return videoUrl;
  return `${videoUrl}?access=${encodeURIComponent(accessToken)}`;
}

function SharedView({
  shared,
  start,
  accessToken,
}: {
  shared: Shared;
  start: number;
  accessToken: string | null;
}) {
  const segments = shared.transcript?.segments ?? [];
  const duration = Math.max(shared.video.durationSeconds ?? 0, segments.at(-1)?.end ?? 0);
  const playback = usePlayback(duration, start);
  return (
    <main id="main" className="page shared">
      <header className="page-header">
        <p className="brand">Knowledge Hub</p>
        <h1>{shared.video.title}</h1>
        {shared.video.description && <p>{shared.video.description}</p>}
      </header>
      <Player
        videoUrl={playableUrl(shared.video.videoUrl, accessToken, location.origin)}
        captionsUrl={null}
        title={shared.video.title}
        duration={duration}
        playback={playback}
        attach={playback.attach}
      />
      <section className="panel" aria-label="Transcript">
        {segments.length > 0 ? (
          <Transcript segments={segments} playback={playback} />
        ) : (
          <p className="muted">This meeting has no transcript.</p>
        )}
      </section>
    </main>
  );
}

/** A meeting opened by a share link, without an account; a password first when the link has one. */
export function SharedMeeting() {
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const [accessToken, setAccessToken] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const shared = useQuery({
    queryKey: ['share', token, accessToken],
    queryFn: () => fetchShared(token, accessToken),
    retry: false,
  });
  const verify = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/share/{token}/verify', { params: { path: { token } }, body: { password } }),
      ),
    onSuccess: (access) => setAccessToken(access.accessToken),
  });
  const submit = submitWith(() => verify.mutate());

  if (shared.isPending) return <Loading label="Opening the shared meeting" />;
  const needsPassword =
    shared.error instanceof KnowledgeHubError && shared.error.code === 'PASSWORD_REQUIRED';
  if (needsPassword) {
    return (
      <AuthCard title="This meeting is protected">
        <form onSubmit={submit}>
          <Field
            label="Password"
            type="password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <FormError error={verify.error} />
          <button type="submit" disabled={verify.isPending}>
            Open
          </button>
        </form>
      </AuthCard>
    );
  }
  if (shared.isError) {
    return (
      <AuthCard title="This link does not open">
        <ErrorState error={shared.error} />
      </AuthCard>
    );
  }
  return <SharedView shared={shared.data} start={Number(params.get('t')) || 0} accessToken={accessToken} />;
}
