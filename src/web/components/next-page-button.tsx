import type { ComponentProps } from "react";
import { Button } from "@/components/ui/button";

interface NextPageButtonProps extends Pick<ComponentProps<typeof Button>, "size" | "className"> {
  /** An infinite query (useInfiniteQuery) over a list's pages. */
  pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  label: string;
  /** What the button says while the page loads; `label` when not given. */
  busyLabel?: string;
}

/** Reads a list's next page; there only while the list has one. */
export function NextPageButton({ pages, label, busyLabel = label, size, className }: NextPageButtonProps) {
  if (!pages.hasNextPage) return null;
  return (
    <Button variant="outline" size={size} className={className} disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
      {pages.isFetchingNextPage ? busyLabel : label}
    </Button>
  );
}
