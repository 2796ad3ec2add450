import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { useNavigate } from "react-router";
import type { AccountOptions } from "@shared/account";
import { SESSION_ENDED_CLOSE, type LoginNotice, type SessionUser } from "@shared/auth";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** The signed-in user, or null. The cookie is HttpOnly, so the server is the only one who knows. */
export function useSession() {
  return useQuery({
    queryKey: queryKeys.session,
    queryFn: async () => (await api<{ user: SessionUser } | null>("/api/auth/get-session"))?.user ?? null,
    staleTime: 60_000,
  });
}

export function signIn(email: string, password: string) {
  return api<{ user: SessionUser }>("/api/auth/sign-in/email", { body: { email, password } });
}

/**
 * `callbackURL` is where the e-mailed confirmation link lands (the login page, keeping its `next`).
 * Without e-mail confirmation the answer's user is signed in (the session cookie came with it).
 */
export function signUp(input: { email: string; password: string; fullName: string; callbackURL?: string }) {
  return api<{ user: SessionUser }>("/api/auth/sign-up/email", {
    body: { email: input.email, password: input.password, name: input.fullName, callbackURL: input.callbackURL ?? "/login" },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return async () => {
    await api("/api/auth/sign-out", { body: {} });
    queryClient.clear();
    queryClient.setQueryData(queryKeys.session, null);
  };
}

/**
 * A live socket was closed because its sign-in session ended (signed out elsewhere, password
 * changed, removed from the team): forget the session and go to the login page, saying why,
 * instead of reconnecting to a server that will refuse every attempt.
 */
export function useSessionEnded() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(async () => {
    // The same close comes when the session lives on but the role no longer allows the socket
    // (a supervisor made a viewer): then only the role is read again, and the page follows it.
    const user = await api<{ user: SessionUser } | null>("/api/auth/get-session").then((s) => s?.user ?? null, () => null);
    if (user) {
      await queryClient.invalidateQueries({ queryKey: queryKeys.organization });
      return;
    }
    queryClient.clear();
    queryClient.setQueryData(queryKeys.session, null);
    navigate("/login", { replace: true, state: { notice: SESSION_ENDED_CLOSE.reason } satisfies LoginNotice });
  }, [queryClient, navigate]);
}

/** Whether this server can send e-mail (sign-up confirmation, password reset). Rarely changes. */
export function useAccountOptions() {
  return useQuery({
    queryKey: queryKeys.accountOptions,
    queryFn: () => api<AccountOptions>("/api/account/options"),
    staleTime: Infinity,
  });
}
