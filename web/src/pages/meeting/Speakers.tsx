import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';

type Segment = Schemas['Transcript']['segments'][number];

function Rename({ id, name, videoId }: { id: string; name: string; videoId: string }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(name);
  const rename = useMutation({
    mutationFn: async () =>
      expectData(
        await api.PATCH('/speakers/{id}', { params: { path: { id } }, body: { name: value.trim() } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['transcript', videoId] }),
  });
  const submit = submitWith(() => {
    if (value.trim() && value.trim() !== name) rename.mutate();
  });
  return (
    <li>
      <form onSubmit={submit} className="inline-form">
        <input
          aria-label={`Name of ${name}`}
          value={value}
          maxLength={100}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" className="secondary" disabled={rename.isPending}>
          Rename
        </button>
      </form>
      <FormError error={rename.error} />
    </li>
  );
}

/** The meeting's speakers; owners and admins rename them (everywhere they speak). */
export function Speakers({
  segments,
  videoId,
  organizationId,
}: {
  segments: Segment[];
  videoId: string;
  organizationId: string;
}) {
  const { organizations } = useCurrent();
  const role = organizations.find((organization) => organization.id === organizationId)?.role;
  const speakers = new Map<string, string>();
  for (const segment of segments) {
    if (segment.speakerId && segment.speaker) speakers.set(segment.speakerId, segment.speaker);
  }
  if (speakers.size === 0) return null;
  const canRename = role === 'owner' || role === 'admin';
  return (
    <section className="panel" aria-labelledby="speakers-heading">
      <h2 id="speakers-heading">Speakers</h2>
      <ul className="speakers">
        {[...speakers].map(([id, name]) =>
          canRename ? (
            <Rename key={`${id}:${name}`} id={id} name={name} videoId={videoId} />
          ) : (
            <li key={id}>{name}</li>
          ),
        )}
      </ul>
    </section>
  );
}
