import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PhoneNumber, PhoneNumberPurchase, PhoneNumberUpdate } from "@shared/phone-numbers";
import type { OutboundCall, OutboundCallInput } from "@shared/outbound";
import { api, apiList } from "@/lib/api";
import { listCreated, listDeleted, listUpdated } from "@/lib/list-cache";
import { queryKeys } from "@/lib/query-keys";

const phoneNumbersQueryKey = queryKeys.phoneNumbers;

/** Spec §7: numbers are read only when signed in. */
export function usePhoneNumbers(enabled: boolean) {
  return useQuery({
    queryKey: phoneNumbersQueryKey,
    queryFn: () => apiList<PhoneNumber>("/api/phone-numbers"),
    enabled,
  });
}

/** The assistant select: id and name of the user's assistants (the Assistants page's list, same cache). */
export function useAssistantOptions(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.assistants,
    queryFn: () => apiList<{ id: string; name: string }>("/api/assistants"),
    enabled,
    select: (list) => list.map(({ id, name }) => ({ id, name })),
  });
}

export function usePurchasePhoneNumber() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: PhoneNumberPurchase) => api<PhoneNumber>("/api/phone-numbers", { method: "POST", body: input }),
    onSuccess: (created) => {
      listCreated(queryClient, phoneNumbersQueryKey, created);
    },
  });
}

export function useUpdatePhoneNumber() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: PhoneNumberUpdate }) =>
      api<PhoneNumber>(`/api/phone-numbers/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: (updated) => {
      listUpdated(queryClient, phoneNumbersQueryKey, updated);
    },
  });
}

export function useDeletePhoneNumber() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(`/api/phone-numbers/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: (_, id) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sipTrunks });
      listDeleted(queryClient, phoneNumbersQueryKey, id);
    },
  });
}

/** POST /api/calls/outbound; the Calls page's list shows the new call. */
export function useOutboundCall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: OutboundCallInput) => api<OutboundCall>("/api/calls/outbound", { method: "POST", body: input }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.calls }),
  });
}
