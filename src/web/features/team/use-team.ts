import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Role } from "@shared/roles";
import type { CreatedInvitation, InviteInput, TeamInvitation } from "@shared/team";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** Pending invitations: admins only (the server refuses others), so the query waits for `enabled`. */
export function useTeamInvitations(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.teamInvitations, queryFn: () => apiList<TeamInvitation>("/api/team/invitations"), enabled });
}

export function useRenameOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<void>("/api/organization", { method: "PATCH", body: { name } }),
    // The sidebar's name and the switcher's list both show it.
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.organization }), client.invalidateQueries({ queryKey: queryKeys.organizations })]),
  });
}

export function useChangeRole() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) =>
      api<void>(`/api/team/members/${encodeURIComponent(userId)}`, { method: "PATCH", body: { role } }),
    // Changing one's own role changes what the app shows.
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.teamMembers }), client.invalidateQueries({ queryKey: queryKeys.organization })]),
  });
}

export function useRemoveMember() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => api<void>(`/api/team/members/${encodeURIComponent(userId)}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.teamMembers }),
  });
}

export function useInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: InviteInput) => api<CreatedInvitation>("/api/team/invitations", { body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.teamInvitations }),
  });
}

export function useRevokeInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/api/team/invitations/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.teamInvitations }),
  });
}
