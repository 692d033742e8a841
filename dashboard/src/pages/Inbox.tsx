// Inbox: one thread per number that sent the account messages, the latest first, with its unread count and
// whether the number opted out; each leads to its conversation, which marks it read.
import { ok, type ConversationThread } from "../api.js";
import { PagedRows, usePagedList, RefreshButton } from "../paging.js";
import { Link } from "../router.js";
import { formatTime } from "../time.js";
import { LIVE_MS, usePolling, useSession } from "../ui.js";
import { Person, useContactNames } from "../contactNames.js";

const LIMIT = 25;

/** The conversation page of a number; the "+" is escaped so the path stays one segment however it is typed. */
export const conversationPath = (phone: string) => `/conversations/${encodeURIComponent(phone)}`;

export function Inbox() {
  const { client } = useSession();
  const list = usePagedList<ConversationThread>(
    async (page) => ok(client.GET("/api/v1/conversations", { params: { query: page } })),
    [],
    LIMIT,
  );
  // Live: new messages show within 2 seconds while few rows are shown (a reload fetches them all) and the tab is visible.
  usePolling(list.poll, LIVE_MS, !!list.items && list.items.length <= 4 * LIMIT);
  const names = useContactNames(list.items?.map((t) => t.phone) ?? []);
  const unread = (list.items ?? []).reduce((n, t) => n + t.unread, 0);
  return (
    <section>
      <h1 tabIndex={-1}>Inbox</h1>
      <p class="muted">
        Messages people sent to the account's numbers (<Link to="/settings/numbers">Settings → Numbers</Link>), one conversation per number,
        the latest first. Open one to read it all and to reply.
        {unread > 0 && ` ${unread} unread message${unread === 1 ? "" : "s"} shown.`}
      </p>
      <div class="toolbar">
        <RefreshButton list={list} />
      </div>
      <PagedRows
        list={list}
        noun="conversations"
        one="conversation"
        loading="the inbox"
        errorPrefix="Could not load the inbox"
        empty="No messages received yet."
      >
        {(items) => (
          <ul class="rows" aria-label="Conversations" ref={list.rowsRef}>
            {items.map((t) => (
              <li key={t.phone} class={`row${t.unread > 0 ? " row-unread" : ""}`} data-phone={t.phone}>
                <div class="row-main">
                  <Link
                    to={conversationPath(t.phone)}
                    class="row-title"
                    aria-label={`Conversation with ${t.phone}${t.unread > 0 ? `, ${t.unread} unread` : ""}`}
                  >
                    <Person phone={t.phone} names={names} />
                  </Link>
                  {t.unread > 0 && <span class="chip chip-scheduled">{t.unread} unread</span>}
                  {t.optedOut && <span class="chip chip-failed">opted out</span>}
                  <p class="row-text">{t.lastBody}</p>
                </div>
                <div class="row-meta">
                  <span>
                    Last received <time dateTime={t.lastReceivedAt}>{formatTime(t.lastReceivedAt)}</time>
                  </span>
                  <span>
                    {t.received} message{t.received === 1 ? "" : "s"}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </PagedRows>
    </section>
  );
}
