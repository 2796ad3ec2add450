import { useQuery } from "@tanstack/react-query";
import { can, type Permission } from "@shared/roles";
import type { CurrentMembership, OrganizationItem } from "@shared/team";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** The organisation the session works in and the person's role there (GET /api/organization). */
export function useMembership() {
  return useQuery({
    queryKey: queryKeys.organization,
    queryFn: () => api<CurrentMembership>("/api/organization"),
    staleTime: 60_000,
  });
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
    queryFn: () => api<OrganizationItem[]>("/api/organizations"),
    staleTime: 60_000,
  });
}
