import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { AccountSummary, ChangePasswordInput, DeleteAccountInput } from "@shared/account";
import type { SessionUser } from "@shared/auth";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** What deleting the account would remove; read when the confirmation opens. */
export function useAccountSummary(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.account, queryFn: () => api<AccountSummary>("/api/account"), enabled, staleTime: 0 });
}

export function useUpdateName() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<{ user: SessionUser }>("/api/account/name", { method: "PATCH", body: { name } }),
    onSuccess: ({ user }) => queryClient.setQueryData(queryKeys.session, user),
  });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (input: ChangePasswordInput) => api<null>("/api/account/password", { body: { ...input } }) });
}

export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: DeleteAccountInput) => api<null>("/api/account", { method: "DELETE", body: { ...input } }),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(queryKeys.session, null);
    },
  });
}
