import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef } from "react";
import type { Campaign, CampaignAction, CampaignContactPage, CampaignInput, CampaignStatus, InvalidContact } from "@shared/campaigns";
import type { DialAllowList, DialPolicy } from "@shared/dial-safety";
import type { PhoneNumber } from "@shared/phone-numbers";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** How often a campaign that is dialling is read again: its counts move on their own. */
const LIVE_REFRESH_MS = 3000;
const isLive = (status: CampaignStatus | undefined) => status === "running" || status === "waiting";

export type CreatedCampaign = { id: string; status: "draft"; contacts: { valid: number; invalid: InvalidContact[] } };
export type ContactsPage = CampaignContactPage;

const CONTACTS_PAGE = 100;

export function useCampaigns() {
  return useQuery({
    queryKey: queryKeys.campaigns,
    queryFn: () => apiList<Campaign>("/api/campaigns"),
    refetchInterval: (query) => (query.state.data?.some((c) => isLive(c.status)) ? LIVE_REFRESH_MS : false),
  });
}

export function useCampaign(id: string) {
  return useQuery({
    queryKey: queryKeys.campaign(id),
    queryFn: () => api<Campaign>(`/api/campaigns/${encodeURIComponent(id)}`),
    refetchInterval: (query) => (isLive(query.state.data?.status) ? LIVE_REFRESH_MS : false),
  });
}


/**
 * The contacts, a page at a time. They are read again whenever the campaign's counts change
 * (`countsKey`), which the campaign's own polling notices, also the last change before it completes.
 */
export function useCampaignContacts(id: string, countsKey: string | null) {
  const client = useQueryClient();
  const seen = useRef(countsKey);
  useEffect(() => {
    if (seen.current === countsKey) return;
    const first = seen.current === null;
    seen.current = countsKey;
    if (!first) void client.invalidateQueries({ queryKey: queryKeys.campaignContacts(id) });
  }, [client, id, countsKey]);
  return useInfiniteQuery({
    queryKey: queryKeys.campaignContacts(id),
    queryFn: ({ pageParam }) => api<ContactsPage>(`/api/campaigns/${encodeURIComponent(id)}/contacts?${new URLSearchParams({ limit: String(CONTACTS_PAGE), ...(pageParam ? { cursor: pageParam } : {}) })}`),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useCreateCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CampaignInput) => api<CreatedCampaign>("/api/campaigns", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.campaigns }),
  });
}

export function useCampaignAction(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (action: CampaignAction) => api<Campaign>(`/api/campaigns/${encodeURIComponent(id)}/${action}`, { method: "POST" }),
    onSuccess: (campaign) => {
      client.setQueryData(queryKeys.campaign(id), campaign);
      // The list and the contacts (calls start, rows move) follow.
      void client.invalidateQueries({ queryKey: queryKeys.campaigns });
    },
  });
}

/** Names for the list and the form: the organisation's assistants and numbers (the same caches as their pages). */
export function useAssistantNames() {
  return useQuery({
    queryKey: queryKeys.assistants,
    queryFn: () => apiList<{ id: string; name: string }>("/api/assistants"),
    select: (list) => list.map(({ id, name }) => ({ id, name })),
  });
}

export function usePhoneNumberOptions() {
  return useQuery({ queryKey: queryKeys.phoneNumbers, queryFn: () => apiList<PhoneNumber>("/api/phone-numbers") });
}

/** What the dial-safety rules need in the CSV preview: the organisation's numbers and its allow-list. */
export function useDialPolicy(): DialPolicy {
  const numbers = usePhoneNumberOptions();
  const allowList = useQuery({ queryKey: queryKeys.dialAllowList, queryFn: () => api<DialAllowList>("/api/settings/dial-allow-list") });
  return useMemo(() => ({ ownNumbers: (numbers.data ?? []).map((n) => n.phone_number), allowed: allowList.data?.allowed ?? [] }), [numbers.data, allowList.data]);
}
