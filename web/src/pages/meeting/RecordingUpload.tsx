import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { DetailedError } from 'tus-js-client';
import { FormError } from '../../components/Form.tsx';
import { csrfToken, KnowledgeHubError } from '../../lib/api.ts';

const ACCEPT = 'video/mp4,video/webm,video/quicktime,audio/*,.mp4,.webm,.mov,.m4a,.mp3,.wav,.ogg,.flac';

/**
 * Sends a recording with the tus protocol (POST /uploads, then PATCHes): a broken connection or a
 * reloaded page resumes where the upload stopped (tus-js-client keeps its address in localStorage).
 */
async function send(videoId: string, file: File, onProgress: (share: number) => void) {
  // Loaded when someone uploads, not with every page.
  const { Upload } = await import('tus-js-client');
  return new Promise<void>((resolve, reject) => {
    const upload = new Upload(file, {
      endpoint: '/uploads',
      metadata: { videoId, filename: file.name },
      headers: { 'x-csrf-token': csrfToken() ?? '' },
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000, 10000],
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => onProgress(total ? sent / total : 0),
      onSuccess: () => resolve(),
      onError: (error) => {
        const response = (error as DetailedError).originalResponse;
        if (!response) return reject(new TypeError('network error'));
        let body: unknown;
        try {
          body = JSON.parse(response.getBody());
        } catch {
          body = undefined;
        }
        reject(new KnowledgeHubError(response.getStatus(), body));
      },
    });
    upload.findPreviousUploads().then((previous) => {
      const last = previous[0];
      if (last) upload.resumeFromPreviousUpload(last);
      upload.start();
    }, reject);
  });
}

/** Upload (or replace) the meeting's recording, with a progress bar. */
export function RecordingUpload({ videoId, hasRecording }: { videoId: string; hasRecording: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const upload = async (file: File) => {
    setError(null);
    setProgress(0);
    try {
      await send(videoId, file, setProgress);
      await queryClient.invalidateQueries({ queryKey: ['video', videoId] });
    } catch (caught) {
      setError(caught);
    } finally {
      setProgress(null);
    }
  };
  return (
    <div className="recording-upload">
      <label htmlFor={id} className="button secondary">
        {hasRecording ? 'Replace the recording' : 'Upload a recording'}
      </label>
      <input
        id={id}
        type="file"
        className="visually-hidden"
        accept={ACCEPT}
        disabled={progress !== null}
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) void upload(file);
          event.target.value = '';
        }}
      />
      {progress !== null && (
        <progress max={1} value={progress} aria-label="Upload progress">
          {Math.round(progress * 100)}%
        </progress>
      )}
      <FormError error={error} />
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = {
  queued: 'The recording is waiting to be transcribed…',
  processing: 'Transcribing the recording…',
};

/** Where the transcript stands while a recording is transcribed, or why it failed. */
export function TranscriptStatus({ status, error }: { status: string; error: string | null }) {
  if (status === 'failed') {
    return (
      <p className="form-error" role="alert">
        The recording could not be transcribed: {error ?? 'unknown reason'}. You can still add a transcript
        file.
      </p>
    );
  }
  const text = STATUS_TEXT[status];
  return text ? (
    <p className="notice" role="status">
      {text}
    </p>
  ) : null;
}
