// An account's phone numbers, shared by Settings → Numbers (the account's own) and the operator's page of an
// account: the list, a page at a time, with one action a number (delete it, or take it back).
import type { PhoneNumber } from "./api.js";
import { ListTable, OrDash, type Column } from "./listTable.js";
import { PagedRows, type PagedList } from "./paging.js";
import { formatTime } from "./time.js";

const ADDED_BY: Column<PhoneNumber> = { label: "Added by", cell: (n) => (n.selfService ? "the account (self-service)" : "the operator") };

/** The numbers; `addedBy` shows who added each; `action` (absent for a caller that may not) is a button a row. */
export function NumberList({
  list,
  empty,
  addedBy = false,
  action,
}: {
  list: PagedList<PhoneNumber>;
  empty: string;
  addedBy?: boolean;
  action?: { label: string; onClick: (n: PhoneNumber) => void };
}) {
  return (
    <PagedRows list={list} noun="numbers" one="number" errorPrefix="Could not load the numbers" empty={empty}>
      {(items) => (
        <ListTable
          rows={items}
          bodyRef={list.rowsRef}
          rowKey={(n) => n.numberId}
          rowAttributes={(n) => ({ "data-number": n.phoneNumber })}
          columns={[
            { label: "Number", cell: (n) => n.phoneNumber },
            { label: "Name", cell: (n) => <OrDash value={n.name} /> },
            ...(addedBy ? [ADDED_BY] : []),
            { label: "Added", cell: (n) => formatTime(n.createdAt) },
          ]}
          actions={
            action &&
            ((n) => (
              <button
                type="button"
                class="danger small"
                onClick={() => action.onClick(n)}
                aria-label={`${action.label} number ${n.phoneNumber}`}
              >
                {action.label}
              </button>
            ))
          }
        />
      )}
    </PagedRows>
  );
}
