// Inbox: the messages people sent to the account's numbers, newest first, each leading to its conversation.
import { ok, type InboundMessage } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { Link } from "../router.js";
import { formatTime } from "../time.js";
import { usePolling, useSession } from "../ui.js";
import { Person, useContactNames } from "../contactNames.js";

const LIMIT = 25;

/** The conversation page of a number; the "+" is escaped so the path stays one segment however it is typed. */
export const conversationPath = (phone: string) => `/conversations/${encodeURIComponent(phone)}`;

export function Inbox() {
  const { client } = useSession();
  const list = usePagedList<InboundMessage>(
    async (page) => {
      const answer = await ok(client.GET("/api/v1/messages", { params: { query: { ...page, direction: "inbound" } } }));
      return { ...answer, data: answer.data.filter((m): m is InboundMessage => m.direction === "inbound") };
    },
    [],
    LIMIT,
  );
  // New messages arrive by themselves: look again now and then while few rows are shown (a reload fetches them all).
  usePolling(list.reload, 5000, !!list.items && list.items.length <= 4 * LIMIT);
  const names = useContactNames(list.items?.map((m) => m.from) ?? []);
  return (
    <section>
      <h1 tabIndex={-1}>Inbox</h1>
      <p class="muted">
        Messages people sent to the account's numbers (<Link to="/settings/numbers">Settings → Numbers</Link>), newest first. Open one to
        see the whole conversation with that number and to reply.
      </p>
      <div class="toolbar">
        <button type="button" onClick={() => void list.reload()} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <PagedRows
        list={list}
        noun="messages"
        one="message"
        loading="the inbox"
        errorPrefix="Could not load the inbox"
        empty="No messages received yet."
      >
        {(items) => (
          <ul class="rows" aria-label="Received messages" ref={list.rowsRef}>
            {items.map((m) => (
              <li key={m.messageId} class="row" data-message-id={m.messageId}>
                <div class="row-main">
                  <Link to={conversationPath(m.from)} class="row-title" aria-label={`Conversation with ${m.from}`}>
                    <Person phone={m.from} names={names} />
                  </Link>
                  {m.incomplete && <span class="chip chip-undelivered">incomplete</span>}
                  <p class="row-text">{m.body}</p>
                </div>
                <div class="row-meta">
                  <span>
                    Received <time dateTime={m.receivedAt}>{formatTime(m.receivedAt)}</time>
                  </span>
                  <span>to {m.to}</span>
                </div>
                <div class="row-actions">
                  <Link to={`/messages/${m.messageId}`} aria-label={`Details of the message from ${m.from}`}>
                    Details
                  </Link>
                </div>
              </li>
            ))}
          </ul>
        )}
      </PagedRows>
    </section>
  );
}
