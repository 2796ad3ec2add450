import type { MouseEvent, ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";

/** An icon button in a table row's Actions cell, named for screen readers and explained on hover. */
export function RowAction({
  label,
  tip = label,
  destructive,
  onClick,
  children,
}: {
  label: string;
  tip?: string;
  destructive?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Button
          variant="ghost"
          size="icon-sm"
          aria-label={label}
          className={destructive ? "text-muted-foreground hover:bg-red-50 hover:text-destructive" : "text-muted-foreground"}
          onClick={(e: MouseEvent) => {
            // Rows that open their details on click must not do that for an action too.
            e.stopPropagation();
            onClick();
          }}
          onKeyDown={(e) => e.stopPropagation()}
        >
          {children}
        </Button>
      </TooltipTrigger>
      <TooltipContent>{tip}</TooltipContent>
    </Tooltip>
  );
}
