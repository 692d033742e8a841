// A tiny router over the History API: paths under /dashboard/, links that are real <a href>, so they open in a
// new tab, show their target and work with the keyboard like any link.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export const BASE = "/dashboard";

export interface Location {
  /** Path below /dashboard, starting with "/". */
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || "/" : "/";
  return { path: path.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};
window.addEventListener("popstate", notify);

export function navigate(to: string, { replace = false } = {}): void {
  const url = BASE + to;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  notify();
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

interface LinkProps {
  to: string;
  children: ComponentChildren;
  class?: string;
  "aria-current"?: "page";
  "aria-label"?: string;
}

export function Link({ to, children, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={BASE + to}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
