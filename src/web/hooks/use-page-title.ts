import { useEffect } from "react";

export const SITE_TITLE = "Switchboard — AI voice assistants for contact centers";

/**
 * Names the page in the browser tab and history (`Calls · Switchboard`); null: the site's own
 * title; undefined: leaves it to a page inside (a frame around a page it does not know).
 */
export function usePageTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (title === undefined) return;
    const previous = document.title;
    document.title = title ? `${title} · Switchboard` : SITE_TITLE;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
