// The table a list page shows (dashboard/README.md, "Lists"): a header of column names, a row per
// item with each cell labelled by its column (`data-label`, which the narrow layout shows beside the value),
// and, where the caller may act on a row, a last column of actions whose header only a screen reader reads.
// What a list shows when it is empty, loading or failed is LoadedRows's (below) for a list loaded whole, and
// PagedRows's (paging.tsx) for a list the API pages.
import type { ComponentChildren, Ref } from "preact";
import { Loading, ProblemMessage, type Async } from "./ui.js";

/** A column: its header, and what a row shows under it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** An amount or a count: right-aligned, header and cells. */
  numeric?: boolean;
  /** The cells' class (`pre`: a message's text as written). */
  class?: string;
}

export interface ListTableProps<T> {
  rows: T[];
  columns: Column<T>[];
  /** The row's key, unique in the list. */
  rowKey: (row: T) => string;
  /** Attributes of the row (`data-*` that tests and links find it by). */
  rowAttributes?: (row: T) => Record<string, string>;
  /** The row's actions (buttons, links), in a last column; none, no column. */
  actions?: (row: T) => ComponentChildren;
  /** The table body, for a list that keeps its place when rows are added (PagedList.rowsRef). */
  bodyRef?: Ref<HTMLTableSectionElement>;
  /** What the table lists, for a screen reader. */
  caption?: string;
}

export function ListTable<T>({ rows, columns, rowKey, rowAttributes, actions, bodyRef, caption }: ListTableProps<T>) {
  return (
    <table class="table">
      {caption && <caption class="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.label} class={c.numeric ? "number" : undefined}>
              {c.label}
            </th>
          ))}
          {actions && (
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody ref={bodyRef}>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowAttributes?.(row)}>
            {columns.map((c) => (
              <td data-label={c.label} key={c.label} class={c.numeric ? "number" : c.class}>
                {c.cell(row)}
              </td>
            ))}
            {actions && <td>{actions(row)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A value, or a muted dash where there is none. */
export function OrDash({ value }: { value: ComponentChildren }) {
  return value === null || value === undefined || value === "" ? <span class="muted">—</span> : <>{value}</>;
}

/**
 * A list loaded whole (useAsync), as PagedRows shows a paged one: the load's problem, "Loading …" until it is
 * there, the empty text, or the rows (`children`, a ListTable as a rule).
 */
export function LoadedRows<T>({
  list,
  loading,
  errorPrefix,
  empty,
  children,
}: {
  list: Async<T[]>;
  /** What "Loading …" names. */
  loading: string;
  errorPrefix: string;
  empty: ComponentChildren;
  children: (rows: T[]) => ComponentChildren;
}) {
  return (
    <>
      <ProblemMessage error={list.error} prefix={errorPrefix} />
      {list.loading && !list.data && <Loading what={loading} />}
      {list.data?.length === 0 && <p class="muted">{empty}</p>}
      {list.data && list.data.length > 0 && children(list.data)}
    </>
  );
}
