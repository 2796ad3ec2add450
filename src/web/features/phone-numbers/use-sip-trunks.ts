import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PhoneNumber, SipPhoneNumberInput } from "@shared/phone-numbers";
import type { SipListener, SipTrunk } from "@shared/sip-trunks";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** The trunks, polled: their state (OPTIONS seen, registration) is written by the SIP runtime. */
export function useSipTrunks(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.sipTrunks, queryFn: () => apiList<SipTrunk>("/api/sip-trunks"), enabled, refetchInterval: 15_000 });
}

export function useSipListener(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.sipListener, queryFn: () => api<SipListener>("/api/sip-trunks/listener"), enabled, staleTime: 60_000 });
}

export function useSaveSipTrunk() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: Record<string, unknown> }) =>
      api<SipTrunk>(id ? `/api/sip-trunks/${encodeURIComponent(id)}` : "/api/sip-trunks", { method: id ? "PATCH" : "POST", body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.sipTrunks }),
  });
}

export function useDeleteSipTrunk() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(`/api/sip-trunks/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.sipTrunks }),
  });
}

/** A number on a trunk: the numbers' list and the trunks' cards both show it. */
export function useAddSipNumber() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: SipPhoneNumberInput) => api<PhoneNumber>("/api/phone-numbers", { method: "POST", body: input }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.phoneNumbers });
      void client.invalidateQueries({ queryKey: queryKeys.sipTrunks });
    },
  });
}
