import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { AnswerText, CitationList } from '../components/AnswerText.tsx';
import { FormError } from '../components/Form.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData, KnowledgeHubError, type Schemas } from '../lib/api.ts';
import { readEvents } from '../lib/events.ts';
import { useCurrent } from '../lib/session.tsx';

type Message = Pick<Schemas['ChatMessage'], 'role' | 'content' | 'citations'> & { id: string };

/** A conversation whose answers stream in as they are written. */
export function Conversations() {
  const { organization } = useCurrent();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const conversations = useQuery({
    queryKey: ['conversations', organization.id],
    queryFn: async () =>
      expectData(
        await api.GET('/chat/conversations', {
          params: { query: { organizationId: organization.id, limit: 20 } },
        }),
      ).data,
  });

  const open = async (id: string) => {
    setError(null);
    try {
      const page = expectData(
        await api.GET('/chat/conversations/{id}/messages', {
          params: { path: { id }, query: { limit: 100 } },
        }),
      );
      setConversationId(id);
      setMessages(page.data);
    } catch (caught) {
      setError(caught);
    }
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const message = draft.trim();
    if (!message || streaming) return;
    setDraft('');
    setError(null);
    setStreaming(true);
    const answerId = `pending-${Date.now()}`;
    setMessages((current) => [
      ...current,
      { id: `${answerId}-q`, role: 'user', content: message, citations: [] },
      { id: answerId, role: 'assistant', content: '', citations: [] },
    ]);
    const update = (change: (message: Message) => Message) =>
      setMessages((current) => current.map((item) => (item.id === answerId ? change(item) : item)));
    try {
      const result = await api.POST('/ai/chat', {
        body: { message, organizationId: organization.id, ...(conversationId ? { conversationId } : {}) },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
      });
      if (!result.response.ok || !result.data)
        throw new KnowledgeHubError(result.response.status, result.error);
      for await (const { event: name, data } of readEvents(result.data as ReadableStream<Uint8Array>)) {
        const payload = JSON.parse(data);
        if (name === 'token') update((item) => ({ ...item, content: item.content + payload.text }));
        if (name === 'citation') update((item) => ({ ...item, citations: [...item.citations, payload] }));
        if (name === 'error') throw new KnowledgeHubError(502, payload);
        if (name === 'done') {
          setConversationId(payload.conversationId);
          update(() => ({ ...payload.assistantMessage }));
        }
      }
      await queryClient.invalidateQueries({ queryKey: ['conversations', organization.id] });
    } catch (caught) {
      setError(caught);
      setMessages((current) => current.filter((item) => item.id !== answerId));
    } finally {
      setStreaming(false);
    }
  };

  return (
    <section className="panel chat" aria-labelledby="chat-heading">
      <div className="panel-header">
        <h2 id="chat-heading">Conversations</h2>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setConversationId(null);
            setMessages([]);
          }}
        >
          New conversation
        </button>
      </div>
      <div className="chat-layout">
        <nav aria-label="Earlier conversations">
          <QueryView
            query={conversations}
            isEmpty={(data) => data.length === 0}
            empty="No conversations yet."
          >
            {(data) => (
              <ul className="conversation-list">
                {data.map((conversation) => (
                  <li key={conversation.id}>
                    <button
                      type="button"
                      className="link-button"
                      aria-current={conversation.id === conversationId ? 'true' : undefined}
                      onClick={() => open(conversation.id)}
                    >
                      {conversation.title}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </QueryView>
        </nav>
        <div>
          <ol className="messages" aria-live="polite">
            {messages.map((message) => (
              <li key={message.id} className={`message ${message.role}`}>
                {message.role === 'assistant' ? (
                  <>
                    <AnswerText text={message.content || '…'} citations={message.citations} />
                    <CitationList citations={message.citations} />
                  </>
                ) : (
                  <p>{message.content}</p>
                )}
              </li>
            ))}
          </ol>
          <form onSubmit={send} className="ask-form">
            <label htmlFor={inputId} className="visually-hidden">
              Message
            </label>
            <input
              id={inputId}
              value={draft}
              maxLength={4000}
              placeholder="Ask, then ask a follow-up…"
              onChange={(event) => setDraft(event.target.value)}
            />
            <button type="submit" disabled={streaming || !draft.trim()}>
              Send
            </button>
          </form>
          <FormError error={error} />
        </div>
      </div>
    </section>
  );
}
