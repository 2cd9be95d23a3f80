import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useId, useState } from 'react';
import { FormError } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';

/** Drop (or pick) a WebVTT, SRT or text file; the service reads its format. */
export function TranscriptUpload({ videoId }: { videoId: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [dragging, setDragging] = useState(false);
  const upload = useMutation({
    mutationFn: async (file: File) =>
      expectData(
        await api.PUT('/videos/{id}/transcript', {
          params: { path: { id: videoId } },
          body: { text: await file.text() },
        }),
      ),
    onSuccess: () =>
      Promise.all(
        ['transcript', 'knowledge', 'video'].map((key) =>
          queryClient.invalidateQueries({ queryKey: [key, videoId] }),
        ),
      ),
  });
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file) upload.mutate(file);
  };
  return (
    // The file input is the way in for keyboards and screen readers; dropping a file is a shortcut.
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target beside the file input, not a control
    <div
      className={`dropzone${dragging ? ' dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={drop}
    >
      <p>This meeting has no transcript yet.</p>
      <label htmlFor={id} className="button secondary">
        {upload.isPending ? 'Uploading…' : 'Choose a transcript file'}
      </label>
      <input
        id={id}
        type="file"
        className="visually-hidden"
        accept=".vtt,.srt,.txt,text/vtt,text/plain"
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) upload.mutate(file);
        }}
      />
      <p className="muted">or drop a WebVTT, SRT or text file here.</p>
      <FormError error={upload.error} />
    </div>
  );
}
