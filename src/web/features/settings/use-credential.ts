import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CredentialName, CredentialSaveResult, CredentialStatus } from "@shared/credentials";
import { api } from "@/lib/api";

export function useCredential(name: CredentialName) {
  return useQuery({
    queryKey: ["credentials", name],
    queryFn: () => api<CredentialStatus>(`/api/credentials/${name}`),
  });
}

export function useSaveCredential(name: CredentialName) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (value: string) => api<CredentialSaveResult>(`/api/credentials/${name}`, { method: "PUT", body: { value } }),
    onSuccess: (result) => queryClient.setQueryData(["credentials", name], result),
  });
}

export function useRemoveCredential(name: CredentialName) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<null>(`/api/credentials/${name}`, { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["credentials", name] }),
  });
}
