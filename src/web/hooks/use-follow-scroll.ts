import { useEffect, useLayoutEffect, useRef } from "react";

/**
 * A scroller that follows new content (a live transcript): it scrolls to the bottom whenever
 * `content` changes, unless the reader has scrolled up to read something earlier.
 */
export function useFollowScroll<T>(content: T) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [content]);

  return scroller;
}
