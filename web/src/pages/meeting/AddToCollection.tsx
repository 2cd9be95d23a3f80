import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { FormError, InlineSelect } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';

/** Put the meeting into a folder or playlist of its organization (it leaves any other one). */
export function AddToCollection({
  videoId,
  organizationId,
  collectionId,
}: {
  videoId: string;
  organizationId: string;
  collectionId: string | null;
}) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState(collectionId ?? '');
  const collections = useQuery({
    queryKey: ['collections', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/collections', { params: { query: { organizationId, limit: 100 } } })).data,
  });
  const add = useMutation({
    mutationFn: async (id: string) =>
      expectData(await api.POST('/collections/{id}/videos', { params: { path: { id } }, body: { videoId } })),
    onSuccess: () =>
      Promise.all(
        [['video', videoId], ['collections'], ['collection']].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
  if (!collections.data?.length) return null;
  const current = collections.data.find((collection) => collection.id === collectionId);
  return (
    <div className="add-to-collection">
      {current && (
        <p>
          In <Link to={`/collections/${current.id}`}>{current.name}</Link>
        </p>
      )}
      <InlineSelect label="Add to a collection" value={chosen} onChange={setChosen}>
        <option value="">Choose…</option>
        {collections.data.map((collection) => (
          <option key={collection.id} value={collection.id}>
            {collection.name} ({collection.type})
          </option>
        ))}
      </InlineSelect>{' '}
      <button
        type="button"
        className="secondary"
        disabled={!chosen || add.isPending}
        onClick={() => add.mutate(chosen)}
      >
        Add
      </button>
      {add.isSuccess && <span role="status"> Added.</span>}
      <FormError error={add.error} />
    </div>
  );
}
