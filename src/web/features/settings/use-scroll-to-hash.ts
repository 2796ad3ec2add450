import { useEffect } from "react";
import { useLocation } from "react-router";

/** How long the cards above a linked card may still be loading and pushing it down. */
const SETTLE_MS = 3000;

/**
 * A link to `/settings#twilio` lands on the Twilio card. The router does not scroll to a hash,
 * and the cards above it load their data after the page renders and grow, so the card is scrolled
 * to again while the page settles, until the person scrolls or types themselves.
 */
export function useScrollToHash() {
  const { hash } = useLocation();
  useEffect(() => {
    const id = decodeURIComponent(hash.slice(1));
    if (!id) return;
    const scroll = () => document.getElementById(id)?.scrollIntoView({ block: "start" });
    scroll();
    const observer = new ResizeObserver(scroll);
    observer.observe(document.body);
    const stop = () => observer.disconnect();
    const timer = window.setTimeout(stop, SETTLE_MS);
    const events = ["wheel", "touchstart", "keydown", "mousedown"] as const;
    for (const e of events) window.addEventListener(e, stop, { once: true, passive: true });
    return () => {
      stop();
      window.clearTimeout(timer);
      for (const e of events) window.removeEventListener(e, stop);
    };
  }, [hash]);
}
