import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CredentialName, CredentialSaveResult, CredentialStatus, TwilioCredentialsInput, TwilioCredentialsSaveResult } from "@shared/credentials";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

export function useCredential(name: CredentialName) {
  return useQuery({
    queryKey: queryKeys.credential(name),
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

/** Twilio's SID and token go together: one request stores both and verifies them at Twilio. */
export function useSaveTwilioCredentials() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TwilioCredentialsInput) => api<TwilioCredentialsSaveResult>("/api/credentials/twilio", { method: "PUT", body: input }),
    onSuccess: (result) => {
      queryClient.setQueryData(["credentials", "twilio_account_sid"], result.account_sid);
      queryClient.setQueryData(["credentials", "twilio_auth_token"], result.auth_token);
    },
  });
}

export function useRemoveCredential(name: CredentialName) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<null>(`/api/credentials/${name}`, { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.credential(name) }),
  });
}
