import { Badge } from "@/components/ui/badge";
import { Headset, Mail, Megaphone, MessagesSquare, ShoppingBag, Users, type LucideIcon } from "lucide-react";

/**
 * Spec §2: six connector kinds, named generically. None is available yet, so each card says
 * "Coming soon" and is not styled as clickable; it is still an (aria-disabled) button, so
 * keyboard and screen-reader users reach it and hear that it is unavailable.
 */
const CONNECTORS: { name: string; description: string; icon: LucideIcon; tint: string }[] = [
  { name: "Help Desk", description: "Tickets, customer conversations and support history", icon: Headset, tint: "bg-emerald-50 text-emerald-700" },
  { name: "Team Chat", description: "Post messages to channels and teammates", icon: MessagesSquare, tint: "bg-violet-50 text-violet-700" },
  { name: "CRM", description: "Contacts, companies and deals", icon: Users, tint: "bg-sky-50 text-sky-700" },
  { name: "Marketing CRM", description: "Leads, lists and campaigns", icon: Megaphone, tint: "bg-orange-50 text-orange-700" },
  { name: "E-commerce", description: "Orders, products and customers of your store", icon: ShoppingBag, tint: "bg-lime-50 text-lime-700" },
  { name: "Email", description: "Send and track transactional email", icon: Mail, tint: "bg-rose-50 text-rose-700" },
];

export function ToolConnectors() {
  return (
    <div className="grid gap-4 px-6 pb-6">
      <p className="text-sm text-muted-foreground">Click on a connector to integrate with your tools</p>
      <ul className="grid gap-3 sm:grid-cols-2" aria-label="Connectors">
        {CONNECTORS.map(({ name, description, icon: Icon, tint }) => (
          <li key={name}>
            <button
              type="button"
              aria-disabled="true"
              onClick={(e) => e.preventDefault()}
              className="flex w-full cursor-default items-start gap-3 rounded-lg border border-dashed bg-muted/30 p-4 text-left outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
            >
              <span className={`flex size-10 shrink-0 items-center justify-center rounded-lg opacity-70 ${tint}`} aria-hidden="true">
                <Icon className="size-5" />
              </span>
              <span className="grid flex-1 gap-0.5">
                <span className="flex items-center justify-between gap-2">
                  <span className="text-sm font-medium">{name}</span>
                  <Badge variant="outline" className="text-muted-foreground">
                    Coming soon
                  </Badge>
                </span>
                <span className="text-xs leading-snug text-muted-foreground">{description}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
