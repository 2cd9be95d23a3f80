/** A server-sent event as a client sees it. */
export type ServerSentEvent = { id?: string; event: string; data: string };

/**
 * A minimal EventSource over fetch (Node has no EventSource that sends headers): connects, parses
 * the stream into events, and lets a test wait for the next ones.
 */
export async function openEventStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: ServerSentEvent[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  let consumed = 0;

  const pump = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let boundary = buffer.indexOf('\n\n');
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = parseBlock(block);
          if (event) events.push(event);
          boundary = buffer.indexOf('\n\n');
        }
        for (const wake of waiters.splice(0)) wake();
      }
    } catch {
      // Aborted by close().
    } finally {
      ended = true;
      for (const wake of waiters.splice(0)) wake();
    }
  })();

  /** The next event not yet returned (of the given type, skipping others), or an error after `timeoutMs`. */
  async function next(type?: string, timeoutMs = 5000): Promise<ServerSentEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (consumed < events.length) {
        const event = events[consumed++] as ServerSentEvent;
        if (!type || event.event === type) return event;
      }
      if (ended) throw new Error(`event stream ended before a ${type ?? 'new'} event`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type ?? ''} event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves when the server ends the stream (rejects after `timeoutMs`). */
  async function closedByServer(timeoutMs = 10_000) {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the stream is still open')), timeoutMs).unref(),
    );
    await Promise.race([pump, timeout]);
  }

  return {
    response,
    events,
    next,
    closedByServer,
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

export type EventStream = Awaited<ReturnType<typeof openEventStream>>;

function parseBlock(block: string): ServerSentEvent | null {
  const event: ServerSentEvent = { event: 'message', data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event.event = value;
    else if (field === 'id') event.id = value;
  }
  if (data.length === 0) return null;
  event.data = data.join('\n');
  return event;
}
