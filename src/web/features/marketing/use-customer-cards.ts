import { useQuery } from "@tanstack/react-query";
import { CUSTOMER_MEDIA_URL_LIFETIME_MS, CUSTOMERS_API_PATH, type CustomerCard } from "@shared/marketing";
import { api } from "@/lib/api";

export const customerCardsQueryKey = ["marketing", "customers"] as const;

/** The customer-story cards; refetched before their signed media addresses expire. */
export function useCustomerCards() {
  return useQuery({
    queryKey: customerCardsQueryKey,
    queryFn: () => api<CustomerCard[]>(CUSTOMERS_API_PATH),
    staleTime: CUSTOMER_MEDIA_URL_LIFETIME_MS / 2,
    refetchInterval: CUSTOMER_MEDIA_URL_LIFETIME_MS * 0.75,
  });
}
