import { useQueryClient } from "@tanstack/react-query";
import { Building2, Check, ChevronsUpDown } from "lucide-react";
import { TEAM_MESSAGES } from "@shared/team";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuLabel, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { SidebarMenu, SidebarMenuButton, SidebarMenuItem } from "@/components/ui/sidebar";
import { toast, toastFailure } from "@/components/ui/sonner";
import { api } from "@/lib/api";
import { useMembership, useOrganizations } from "@/lib/use-membership";

/**
 * The sidebar's organisation: its name, and a menu to switch when the person has several.
 * Everything cached belongs to the organisation left behind, so every query is reset after a
 * switch (the layout also remounts the page, closing its sockets).
 */
export function OrganizationSwitcher() {
  const queryClient = useQueryClient();
  const membership = useMembership();
  const organizations = useOrganizations();
  const name = membership.data?.organization.name ?? "";
  const others = organizations.data ?? [];

  const switchTo = async (id: string) => {
    try {
      await api<void>(`/api/organizations/${encodeURIComponent(id)}/switch`, { method: "POST" });
      await queryClient.resetQueries();
      toast.success(TEAM_MESSAGES.switched);
    } catch (err) {
      toastFailure(TEAM_MESSAGES.switchFailed, err);
    }
  };

  const label = (
    <>
      <Building2 />
      <span className="truncate font-medium" data-testid="current-organization">
        {name}
      </span>
    </>
  );

  if (others.length < 2) {
    return (
      <SidebarMenu>
        <SidebarMenuItem>
          <SidebarMenuButton tooltip={name} className="cursor-default hover:bg-transparent">
            {label}
          </SidebarMenuButton>
        </SidebarMenuItem>
      </SidebarMenu>
    );
  }
  return (
    <SidebarMenu>
      <SidebarMenuItem>
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <SidebarMenuButton tooltip={name} aria-label={`Organisation: ${name}. Switch organisation`}>
              {label}
              <ChevronsUpDown className="ml-auto" />
            </SidebarMenuButton>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="start" className="min-w-56">
            <DropdownMenuLabel>Organisations</DropdownMenuLabel>
            {others.map((org) => (
              <DropdownMenuItem key={org.id} disabled={org.current} onSelect={() => void switchTo(org.id)}>
                <span className="truncate">{org.name}</span>
                {org.current && <Check className="ml-auto" />}
              </DropdownMenuItem>
            ))}
          </DropdownMenuContent>
        </DropdownMenu>
      </SidebarMenuItem>
    </SidebarMenu>
  );
}
