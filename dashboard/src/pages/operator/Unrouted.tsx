// Operator → Unrouted messages: inbound messages to numbers no account holds, kept for the operator.
import { ok, type UnroutedMessage } from "../../api.js";
import { PagedRows, usePagedList } from "../../paging.js";
import { formatTime } from "../../time.js";
import { useSession } from "../../ui.js";

export function Unrouted() {
  const { client } = useSession();
  const list = usePagedList<UnroutedMessage>(
    async (page) => ok(client.GET("/api/v1/unrouted-messages", { params: { query: page } })),
    [],
    50,
  );
  return (
    <section>
      <h1 tabIndex={-1}>Unrouted messages</h1>
      <p class="muted">
        Messages the carriers delivered to numbers no account holds, newest first. They reach no account; assign the number to an account
        (on its page) so that the next ones do.
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
        loading="unrouted messages"
        errorPrefix="Could not load the unrouted messages"
        empty="No unrouted messages: every message received was for a number an account holds."
      >
        {(items) => (
          <table class="table">
            <caption class="sr-only">Unrouted messages, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Text</th>
                <th scope="col">Segments</th>
              </tr>
            </thead>
            <tbody ref={list.rowsRef}>
              {items.map((m) => (
                <tr key={m.unroutedMessageId}>
                  <td data-label="Received">{formatTime(m.receivedAt)}</td>
                  <td data-label="From">{m.from}</td>
                  <td data-label="To">{m.to}</td>
                  <td data-label="Text" class="pre">
                    {m.body}
                    {m.incomplete && <small class="muted block">Incomplete: parts of this long message never arrived.</small>}
                  </td>
                  <td data-label="Segments">{m.segments}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedRows>
    </section>
  );
}
