import { Tabs as TabsPrimitive } from "radix-ui";

import { slotted } from "@/components/ui/slotted";

const Tabs = slotted(TabsPrimitive.Root, "tabs", "flex flex-col gap-2");
const TabsList = slotted(
  TabsPrimitive.List,
  "tabs-list",
  "inline-flex h-9 w-fit items-center justify-center rounded-lg bg-muted p-[3px] text-muted-foreground",
);
const TabsTrigger = slotted(
  TabsPrimitive.Trigger,
  "tabs-trigger",
  "inline-flex h-[calc(100%-1px)] flex-1 items-center justify-center gap-1.5 rounded-md border border-transparent px-2 py-1 text-sm font-medium whitespace-nowrap text-foreground/70 transition-[color,box-shadow] hover:text-foreground focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-1 focus-visible:outline-ring disabled:pointer-events-none disabled:opacity-50 data-[state=active]:bg-background data-[state=active]:text-foreground data-[state=active]:shadow-sm [&_svg]:pointer-events-none [&_svg]:shrink-0 [&_svg:not([class*='size-'])]:size-4",
);
const TabsContent = slotted(TabsPrimitive.Content, "tabs-content", "flex-1 outline-none");

export { Tabs, TabsList, TabsTrigger, TabsContent };
