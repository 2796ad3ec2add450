import { useQuery } from "@tanstack/react-query";
import { can, type Permission } from "@shared/roles";
import type { CurrentMembership } from "@shared/team";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/**
 * Whether the signed-in person's role in the current organisation has `permission` (false until
 * known). A small local reader of GET /api/organization: a shared membership hook in web/lib
 * should replace it once there is one.
 */
export function useCan(permission: Permission): boolean {
  const membership = useQuery({ queryKey: queryKeys.organization, queryFn: () => api<CurrentMembership>("/api/organization") });
  return membership.data ? can(membership.data.role, permission) : false;
}
