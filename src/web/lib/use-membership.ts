import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { can, ROLE_CHANGE_TEXTS, type Permission, type Role } from "@shared/roles";
import { toast } from "@/components/ui/sonner";
import type { CurrentMembership, OrganizationItem, TeamMember } from "@shared/team";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** The organisation the session works in and the person's role there (GET /api/organization). */
export function useMembership() {
  return useQuery({
    queryKey: queryKeys.organization,
    queryFn: () => api<CurrentMembership>("/api/organization"),
    staleTime: 60_000,
    // Read again now and then, and on any refusal (main.tsx), so a role changed by an admin
    // reaches an open page without a reload.
    refetchInterval: 60_000,
    refetchOnWindowFocus: true,
  });
}

/**
 * Says so when the role in the same organisation changes under an open page (an admin changed
 * it); the controls follow by themselves, since every `useCan` reads the same query.
 */
export function useRoleChangeNotice() {
  const { data } = useMembership();
  const seen = useRef<{ organizationId: string; role: Role } | null>(null);
  useEffect(() => {
    if (!data) return;
    const before = seen.current;
    seen.current = { organizationId: data.organization.id, role: data.role };
    if (before && before.organizationId === data.organization.id && before.role !== data.role) {
      toast.info(ROLE_CHANGE_TEXTS.changed(data.role), { id: "role-changed" });
    }
  }, [data]);
}

/**
 * Whether the signed-in person's role has `permission`. False until the role is known, so a
 * control the role lacks never flashes; the server is still the real check (403).
 */
export function useCan(permission: Permission): boolean {
  const { data } = useMembership();
  return data ? can(data.role, permission) : false;
}

/** Every organisation the person belongs to, the current one marked. */
export function useOrganizations() {
  return useQuery({
    queryKey: queryKeys.organizations,
    queryFn: () => apiList<OrganizationItem>("/api/organizations"),
    staleTime: 60_000,
  });
}

/** The organisation's members, every page: the team card lists them, the audit log filters by them (one cache entry). */
export function useTeamMembers() {
  return useQuery({ queryKey: queryKeys.teamMembers, queryFn: () => apiList<TeamMember>("/api/team/members") });
}
