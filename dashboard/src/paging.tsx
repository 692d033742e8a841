// The one way the dashboard shows a list the API pages (`{ data, nextCursor }`, `limit` and `cursor`): the first
// page, then "Load more" until the API says there is no next page, so every row can be reached. A reload
// fetches again as many rows as are shown, so polling and refreshing never take away rows the user loaded.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ApiProblem } from "./api.js";
import type { ComponentChildren } from "preact";
import { asProblem, Loading, ProblemMessage } from "./ui.js";

export interface PageOf<T> {
  data: T[];
  nextCursor: string | null;
}

/** One request for a page: `cursor` is undefined for the first. */
export type FetchPage<T> = (query: { limit: number; cursor?: string }) => Promise<PageOf<T>>;

/** The API's largest page. */
const MAX_LIMIT = 100;

export interface PagedList<T> {
  /** The rows loaded so far, newest first; undefined until the first page arrives. */
  items: T[] | undefined;
  /** The first load or a reload failed. */
  error: ApiProblem | undefined;
  loading: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  /** Loading the next page failed (the rows shown stay). */
  moreError: ApiProblem | undefined;
  loadMore: () => Promise<void>;
  reload: () => Promise<void>;
  /** A reload that does not show as one (no `loading`, no busy button): a live list looking again. */
  poll: () => Promise<void>;
  /** A local change (an edit, a cancel) without asking the API again. */
  update: (change: (items: T[]) => T[]) => void;
  /** Put on the element whose children are the rows (a <ul>, a <tbody>): Load more focuses the first new row. */
  rowsRef: (element: HTMLElement | null) => void;
}

interface State<T> {
  items?: T[];
  nextCursor: string | null;
  error?: ApiProblem;
  loading: boolean;
  loadingMore: boolean;
  moreError?: ApiProblem;
}

/**
 * A search's pages may hold few rows (or none) and still go on (the API looks through a bounded window of rows
 * per page): at most this many requests fill the first rows, then "Load more" searches on.
 */
const MAX_REQUESTS = 10;

/** Pages from the first until at least `count` rows, the end, or MAX_REQUESTS. */
async function fetchRows<T>(fetchPage: FetchPage<T>, count: number, pageSize: number) {
  const limit = Math.min(MAX_LIMIT, Math.max(pageSize, count));
  const items: T[] = [];
  let cursor: string | undefined;
  let requests = 0;
  do {
    const page = await fetchPage({ limit, ...(cursor ? { cursor } : {}) });
    items.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && items.length < count && ++requests < MAX_REQUESTS);
  return { items, nextCursor: cursor ?? null };
}

/**
 * A paged list, loaded again from its first page when `deps` change. Loads and reloads run one after the other,
 * so a poll never races a "Load more"; answers for earlier `deps` are dropped.
 */
export function usePagedList<T>(fetchPage: FetchPage<T>, deps: unknown[], pageSize = 25): PagedList<T> {
  const [state, setState] = useState<State<T>>({ nextCursor: null, loading: true, loadingMore: false });
  const stateRef = useRef(state);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const generation = useRef(0);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const rows = useRef<HTMLElement | null>(null);
  const rowsRef = useCallback((element: HTMLElement | null) => {
    rows.current = element;
  }, []);
  const focusRow = useRef<number | undefined>(undefined);
  /** The generation a "Load more" is queued or running for, if any. */
  const moreFor = useRef<number | undefined>(undefined);

  const set = (mine: number, change: (s: State<T>) => State<T>) => {
    if (mine !== generation.current) return;
    stateRef.current = change(stateRef.current);
    setState(stateRef.current);
  };
  const enqueue = (task: (mine: number) => Promise<void>) => {
    const mine = generation.current;
    const run = queue.current.then(() => (mine === generation.current ? task(mine) : undefined));
    queue.current = run.catch(() => undefined);
    return run;
  };

  const reload = (quiet = false) =>
    enqueue(async (mine) => {
      if (!quiet) set(mine, (s) => ({ ...s, loading: true }));
      try {
        const { items, nextCursor } = await fetchRows(fetchRef.current, Math.max(stateRef.current.items?.length ?? 0, pageSize), pageSize);
        set(mine, (s) => ({ ...s, items, nextCursor, loading: false, error: undefined }));
      } catch (error) {
        set(mine, (s) => ({ ...s, loading: false, error: asProblem(error) }));
      }
    });

  const loadMore = async () => {
    // One at a time: a second press while a page loads does not skip to the page after.
    const generationNow = generation.current;
    if (moreFor.current === generationNow) return;
    moreFor.current = generationNow;
    set(generationNow, (s) => ({ ...s, loadingMore: true, moreError: undefined }));
    await enqueue(async (mine) => {
      const { items = [], nextCursor } = stateRef.current;
      try {
        if (!nextCursor) return;
        const page = await fetchRef.current({ limit: pageSize, cursor: nextCursor });
        if (mine === generation.current) focusRow.current = items.length;
        set(mine, (s) => ({ ...s, items: [...(s.items ?? []), ...page.data], nextCursor: page.nextCursor }));
      } catch (error) {
        set(mine, (s) => ({ ...s, moreError: asProblem(error) }));
      }
    }).finally(() => {
      if (moreFor.current === generationNow) moreFor.current = undefined;
      set(generationNow, (s) => ({ ...s, loadingMore: false }));
    });
  };

  useEffect(() => {
    generation.current++;
    queue.current = Promise.resolve();
    stateRef.current = { nextCursor: null, loading: true, loadingMore: false };
    setState(stateRef.current);
    void reload();
    // The effect follows the dependencies the caller names, not every value it reads.
  }, deps);

  // After "Load more", keyboard focus goes to the first new row, where reading goes on.
  useEffect(() => {
    const index = focusRow.current;
    if (index === undefined) return;
    focusRow.current = undefined;
    const row = rows.current?.children[index] as HTMLElement | undefined;
    if (!row) return;
    row.tabIndex = -1;
    row.focus();
  }, [state.items]);

  return {
    items: state.items,
    error: state.error,
    loading: state.loading,
    hasMore: state.nextCursor !== null,
    loadingMore: state.loadingMore,
    moreError: state.moreError,
    loadMore,
    reload: () => reload(),
    poll: () => reload(true),
    update: (change) => {
      stateRef.current = { ...stateRef.current, items: change(stateRef.current.items ?? []) };
      setState(stateRef.current);
    },
    rowsRef,
  };
}

/** Below a paged list: how many rows are shown and, while the API has more, the button that loads them. */
type LoadMoreState = Pick<PagedList<unknown>, "items" | "hasMore" | "loadingMore" | "moreError" | "loadMore">;

export function LoadMore({ list, noun, one }: { list: LoadMoreState; noun: string; one: string }) {
  const count = list.items?.length ?? 0;
  if (count === 0 && !list.hasMore) return null;
  return (
    <div class="load-more">
      <p class="muted" role="status">
        {count === 0
          ? `No ${noun} found among the newest searched so far.`
          : list.hasMore
            ? `Showing the newest ${count} ${noun}.`
            : count === 1
              ? `Showing the only ${one}.`
              : `Showing all ${count} ${noun}.`}
      </p>
      {list.hasMore && (
        // aria-disabled, not disabled: a disabled button drops keyboard focus while the page loads.
        <button type="button" aria-disabled={list.loadingMore} onClick={() => void list.loadMore()}>
          {list.loadingMore ? `Loading more ${noun}…` : `Load more ${noun}`}
        </button>
      )}
      <ProblemMessage error={list.moreError} prefix={`Could not load more ${noun}`} />
    </div>
  );
}

/**
 * A paged list's whole scaffolding, the same on every list page: the load's problem, "Loading…" until the
 * first page, the empty text, the rows (`children`, which puts `list.rowsRef` on their container), and
 * LoadMore below.
 */
export function PagedRows<T>({
  list,
  noun,
  one,
  loading = noun,
  errorPrefix,
  empty,
  children,
}: {
  list: PagedList<T>;
  /** The rows' plural and singular ("messages", "message"). */
  noun: string;
  one: string;
  /** What "Loading …" names (default: the plural). */
  loading?: string;
  errorPrefix?: string;
  /** Shown when the list is empty. */
  empty: ComponentChildren;
  children: (items: T[]) => ComponentChildren;
}) {
  return (
    <>
      <ProblemMessage error={list.error} prefix={errorPrefix} />
      {!list.items && list.loading && <Loading what={loading} />}
      {list.items?.length === 0 && !list.hasMore && <p class="muted">{empty}</p>}
      {list.items && list.items.length > 0 && children(list.items)}
      <LoadMore list={list} noun={noun} one={one} />
    </>
  );
}

/** The button that loads a list again now (a live list also does so by itself). */
export function RefreshButton({ list }: { list: { reload: () => Promise<unknown>; loading: boolean } }) {
  return (
    <button type="button" onClick={() => void list.reload()} disabled={list.loading}>
      Refresh
    </button>
  );
}
