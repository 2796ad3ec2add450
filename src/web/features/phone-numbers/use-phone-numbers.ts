import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PhoneNumber, PhoneNumberPurchase, PhoneNumberUpdate } from "@shared/phone-numbers";
import type { OutboundCall, OutboundCallInput } from "@shared/outbound";
import { api, apiList } from "@/lib/api";
import { useCreateInList, useDeleteFromList, useUpdateInList } from "@/lib/list-mutations";
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

const phoneNumbers = { path: "/api/phone-numbers", key: phoneNumbersQueryKey };

export const usePurchasePhoneNumber = () => useCreateInList<PhoneNumber, PhoneNumberPurchase>(phoneNumbers);
export const useUpdatePhoneNumber = () => useUpdateInList<PhoneNumber, PhoneNumberUpdate>(phoneNumbers);
// A SIP number's trunk card counts it.
export const useDeletePhoneNumber = () => useDeleteFromList(phoneNumbers, [queryKeys.sipTrunks]);

/** POST /api/calls/outbound; the Calls page's list shows the new call. */
export function useOutboundCall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: OutboundCallInput) => api<OutboundCall>("/api/calls/outbound", { method: "POST", body: input }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.calls }),
  });
}
