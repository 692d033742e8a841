// Operator → Unrouted messages: inbound messages to numbers no account holds, kept for the operator.
import { ok, type UnroutedMessage } from "../../api.js";
import { PagedRows, usePagedList, RefreshButton } from "../../paging.js";
import { formatTime } from "../../time.js";
import { ListTable } from "../../listTable.js";
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
        <RefreshButton list={list} />
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
          <ListTable
            caption="Unrouted messages, newest first"
            rows={items}
            bodyRef={list.rowsRef}
            rowKey={(m) => m.unroutedMessageId}
            columns={[
              { label: "Received", cell: (m) => formatTime(m.receivedAt) },
              { label: "From", cell: (m) => m.from },
              { label: "To", cell: (m) => m.to },
              {
                label: "Text",
                class: "pre",
                cell: (m) => (
                  <>
                    {m.body}
                    {m.incomplete && <small class="muted block">Incomplete: parts of this long message never arrived.</small>}
                  </>
                ),
              },
              { label: "Segments", cell: (m) => m.segments },
            ]}
          />
        )}
      </PagedRows>
    </section>
  );
}
